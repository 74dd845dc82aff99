/**
 * The class as a grid, the one model the class report (HTML, JSON, CSV) and the live class board render:
 * per trainee, each stage's verdict from the lab's last check (PASS, FAIL, UNJUDGED, or not checked), the
 * first hint of a failed stage and the node it points at, how long the trainee has been stuck there, when
 * it was checked, when each stage first passed (from the lab's check history), the lab's state, and the
 * tutor's account of the trainee's runs (lab-runs.ts: the last run, how many tries each stage took).
 */
import {
  firstFailure,
  type HistoryLine,
  type JudgedVerdict,
  parseHistory,
  stageVerdictOf,
} from '../check-report/history.js';
import { CheckReportSchema } from '../check-report/report.js';
import { STAGE_NAMES, type StageName } from '../stages/stages.js';
import { type ClassInput, ClassInputSchema, type LabInput, type LabState } from './class-input.js';
import { type LabRuns, labRunsOf } from './lab-runs.js';

/** `unjudged`: the stage was checked but none of its expectations could be judged (and none failed). */
export type StageVerdict = JudgedVerdict | 'not_checked';

export interface StageCell {
  verdict: StageVerdict;
  /** The first failed expectation's hint, for a failed stage. */
  hint: string | null;
  counts: { pass: number; fail: number; unjudged: number } | null;
  /** The first check in the lab's history that passed this stage. */
  first_passed_at: string | null;
}

export interface LabRow {
  name: string;
  state: LabState;
  state_detail: string | null;
  /** state is running. */
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
  /** The node of the trainee's workflow that first failure points at, and the editor's address of its run;
   * null when the checker named none (a check that stopped, a report or history line from before). */
  next_node: string | null;
  next_run_url: string | null;
  /** Since when the checks have failed first at next_node: the earliest of the latest checks in a row that
   * all failed first there, and how many they are. Null without a node. */
  stuck: { since: string; checks: number } | null;
  /** Stages passed, in order from the first, before the first that did not pass. */
  passed_in_a_row: number;
  /** The lab's checks, oldest first (its history), and how many history lines could not be read. */
  checks: number;
  history: HistoryLine[];
  history_unreadable: number;
  /** The tutor's runs (runs.json); null when the lab has none yet (no file, or one not the tutor's). */
  runs: LabRuns | null;
}

export interface ClassReport {
  generated_at: string;
  /** When the host last wrote the labs' states; stale: more than STATES_STALE_MS before generated_at. */
  states_at: string | null;
  states_stale: boolean;
  stages: readonly StageName[];
  labs: LabRow[];
  /** runs: every run the tutor explained, all labs together. */
  totals: {
    labs: number;
    running: number;
    checked: number;
    all_passed: number;
    checks: number;
    runs: number;
  };
}

/** The host rewrites the states every 2 s: older than this, its loop has stopped. */
export const STATES_STALE_MS = 10_000;

const cells = (): Record<StageName, StageCell> =>
  Object.fromEntries(
    STAGE_NAMES.map((s) => [s, { verdict: 'not_checked', hint: null, counts: null, first_passed_at: null }]),
  ) as Record<StageName, StageCell>;

const earlier = (a: string | null, b: string) => (a === null || Date.parse(b) < Date.parse(a) ? b : a);

/** The last check's verdicts, from check-last.json (or, without a readable one, the history's last line). */
function lastCheck(lab: LabInput, history: HistoryLine[], stages: Record<StageName, StageCell>) {
  const parsed = lab.report === null ? null : CheckReportSchema.safeParse(lab.report);
  if (parsed?.success) {
    const report = parsed.data;
    for (const stage of report.stages) {
      const failed = report.results.find((r) => r.stage === stage.stage && r.status === 'fail');
      stages[stage.stage] = {
        ...stages[stage.stage],
        verdict: stageVerdictOf(stage),
        hint: failed?.hint ?? null,
        counts: stage.counts,
      };
    }
    const failure = firstFailure(report);
    return {
      check: 'checked',
      checked_at: report.finished_at,
      requested: report.requested,
      passed: report.passed,
      stopped: report.stopped?.message ?? null,
      next_stage: failure?.stage ?? null,
      next_hint: failure?.hint ?? null,
      next_node: failure?.run?.node ?? null,
      next_run_url: failure?.run?.url ?? null,
    } as const;
  }
  const line = history.at(-1);
  if (line === undefined || (parsed !== null && parsed !== undefined && !parsed.success)) {
    const check = parsed === null || parsed === undefined ? 'never' : 'unreadable';
    return {
      check,
      checked_at: null,
      requested: null,
      passed: null,
      stopped: null,
      next_node: null,
      next_run_url: null,
    } as const;
  }
  for (const stage of STAGE_NAMES) {
    const verdict = line.stages[stage];
    if (verdict === undefined) continue;
    const hint = stage === line.first_failed ? line.first_hint : null;
    stages[stage] = { ...stages[stage], verdict, hint, counts: null };
  }
  return {
    check: 'checked',
    checked_at: line.at,
    requested: line.requested,
    passed: line.passed,
    stopped: line.stopped ? line.first_hint : null,
    next_stage: line.first_failed,
    next_hint: line.first_hint,
    next_node: line.first_node,
    next_run_url: line.first_run_url,
  } as const;
}

/**
 * How long a trainee has been stuck at a node: walking back from the last check, the checks in a row that
 * failed with their first failure at that same node (a pass, another node, or a line from before nodes were
 * named ends the walk). The last check counts once, whether or not the history holds it (a report written
 * before the history was kept, a history line that could not be written).
 */
export function stuckAt(
  history: readonly HistoryLine[],
  node: string | null,
  checkedAt: string | null,
): { since: string; checks: number } | null {
  if (node === null || checkedAt === null) return null;
  const before = history.filter((line) => Date.parse(line.at) <= Date.parse(checkedAt));
  if (before.at(-1)?.at === checkedAt) before.pop();
  let since = checkedAt;
  let checks = 1;
  for (const line of before.reverse()) {
    if (line.passed || line.first_node !== node) break;
    since = line.at;
    checks++;
  }
  return { since, checks };
}

function rowOf(lab: LabInput): LabRow {
  const stages = cells();
  const { lines: history, unreadable } = parseHistory(
    lab.history.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'),
  );
  const last = lastCheck(lab, history, stages);
  for (const line of history)
    for (const stage of STAGE_NAMES)
      if (line.stages[stage] === 'pass')
        stages[stage].first_passed_at = earlier(stages[stage].first_passed_at, line.at);
  // A report written before the history was kept still counts.
  if (last.check === 'checked' && last.checked_at !== null)
    for (const s of STAGE_NAMES)
      if (stages[s].verdict === 'pass')
        stages[s].first_passed_at = earlier(stages[s].first_passed_at, last.checked_at);
  const firstNotPassed = STAGE_NAMES.findIndex((s) => stages[s].verdict !== 'pass');
  return {
    name: lab.name,
    state: lab.state,
    state_detail: lab.state_detail === '' ? null : lab.state_detail,
    up: lab.state === 'running',
    editor_url: lab.editor_url,
    console_url: lab.console_url,
    stages,
    next_stage: null,
    next_hint: null,
    ...last,
    stuck: stuckAt(history, last.next_node, last.checked_at),
    passed_in_a_row:
      last.check !== 'checked' ? 0 : firstNotPassed === -1 ? STAGE_NAMES.length : firstNotPassed,
    checks: history.length,
    history,
    history_unreadable: unreadable,
    runs: labRunsOf(lab.runs),
  };
}

export function buildClassReport(document: ClassInput): ClassReport {
  const input = ClassInputSchema.parse(document);
  const labs = input.labs.map(rowOf);
  const statesAge =
    input.states_at === null ? 0 : Date.parse(input.generated_at) - Date.parse(input.states_at);
  return {
    generated_at: input.generated_at,
    states_at: input.states_at,
    states_stale: statesAge > STATES_STALE_MS,
    stages: STAGE_NAMES,
    labs,
    totals: {
      labs: labs.length,
      running: labs.filter((l) => l.state === 'running').length,
      checked: labs.filter((l) => l.check === 'checked').length,
      all_passed: labs.filter((l) => l.passed === true && l.requested === 'all').length,
      checks: labs.reduce((n, l) => n + l.checks, 0),
      runs: labs.reduce((n, l) => n + (l.runs?.total ?? 0), 0),
    },
  };
}
