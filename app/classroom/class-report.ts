/**
 * The class as a grid: per trainee, each stage's verdict from the lab's last check (PASS, FAIL, UNJUDGED,
 * or not checked), the first hint of a failed stage, when it was checked and whether the lab is up. The
 * HTML, JSON and CSV writers all render this one model.
 */
import { CheckReportSchema, STAGE_NAMES, type StageName } from '../lab/check-report.js';
import type { ClassInput, LabInput } from './class-input.js';

/** `unjudged`: the stage was checked but none of its expectations could be judged (and none failed). */
export type StageVerdict = 'pass' | 'fail' | 'unjudged' | 'not_checked';

export interface StageCell {
  verdict: StageVerdict;
  /** The first failed expectation's hint, for a failed stage. */
  hint: string | null;
  counts: { pass: number; fail: number; unjudged: number } | null;
}

export interface LabRow {
  name: string;
  up: boolean;
  editor_url: string | null;
  console_url: string | null;
  /** never: no report; unreadable: a report that is not the checker's; checked: a report. */
  check: 'never' | 'unreadable' | 'checked';
  checked_at: string | null;
  requested: string | null;
  passed: boolean | null;
  /** Set when the check stopped early (nothing listened on a webhook path): its one line. */
  stopped: string | null;
  stages: Record<StageName, StageCell>;
  /** The hint of the first failed stage: what this trainee should do next. */
  next_hint: string | null;
  next_stage: StageName | null;
  /** Stages passed, in order from the first, before the first that did not pass. */
  passed_in_a_row: number;
}

export interface ClassReport {
  generated_at: string;
  stages: readonly StageName[];
  labs: LabRow[];
  totals: { labs: number; up: number; checked: number; all_passed: number };
}

const notChecked = (): StageCell => ({ verdict: 'not_checked', hint: null, counts: null });

function rowOf(lab: LabInput): LabRow {
  const stages = Object.fromEntries(STAGE_NAMES.map((s) => [s, notChecked()])) as Record<
    StageName,
    StageCell
  >;
  const base = {
    name: lab.name,
    up: lab.up,
    editor_url: lab.editor_url,
    console_url: lab.console_url,
    stages,
  };
  if (lab.report === null || lab.report === undefined) return { ...base, ...empty('never') };
  const parsed = CheckReportSchema.safeParse(lab.report);
  if (!parsed.success) return { ...base, ...empty('unreadable') };
  const report = parsed.data;
  for (const stage of report.stages) {
    const failed = report.results.find((r) => r.stage === stage.stage && r.status === 'fail');
    const { pass, fail, unjudged } = stage.counts;
    stages[stage.stage] = {
      verdict:
        stage.status === 'fail' ? 'fail' : pass === 0 && fail === 0 && unjudged > 0 ? 'unjudged' : 'pass',
      hint: failed?.hint ?? null,
      counts: stage.counts,
    };
  }
  const next = STAGE_NAMES.find((s) => stages[s].verdict === 'fail') ?? null;
  const firstNotPassed = STAGE_NAMES.findIndex((s) => stages[s].verdict !== 'pass');
  return {
    ...base,
    check: 'checked',
    checked_at: report.finished_at,
    requested: report.requested,
    passed: report.passed,
    stopped: report.stopped?.message ?? null,
    next_stage: next,
    next_hint: report.stopped?.message ?? (next === null ? null : stages[next].hint),
    passed_in_a_row: firstNotPassed === -1 ? STAGE_NAMES.length : firstNotPassed,
  };
}

function empty(check: 'never' | 'unreadable') {
  return {
    check,
    checked_at: null,
    requested: null,
    passed: null,
    stopped: null,
    next_stage: null,
    next_hint: null,
    passed_in_a_row: 0,
  } as const;
}

export function buildClassReport(input: ClassInput): ClassReport {
  const labs = input.labs.map(rowOf);
  return {
    generated_at: input.generated_at,
    stages: STAGE_NAMES,
    labs,
    totals: {
      labs: labs.length,
      up: labs.filter((l) => l.up).length,
      checked: labs.filter((l) => l.check === 'checked').length,
      all_passed: labs.filter((l) => l.passed === true && l.requested === 'all').length,
    },
  };
}
