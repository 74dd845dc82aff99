/**
 * The class as CSV: class.csv, one row per trainee, one column per stage (PASS, FAIL, UNJUDGED, not
 * checked), the next step (stage, hint, the node it points at, since when the trainee is stuck there), one
 * column per stage for when it first passed, then the tutor's runs (how many, the last one, one column per
 * stage for how many tries it took; empty when the lab has no runs yet); class-history.csv, one row per
 * check of every lab. New columns are added at the end, so a column keeps its place.
 */
import { STAGE_NAMES } from '../stages/stages.js';
import type { ClassReport, StageVerdict } from './class-report.js';

export const VERDICT_LABEL: Record<StageVerdict, string> = {
  pass: 'PASS',
  fail: 'FAIL',
  unjudged: 'UNJUDGED',
  not_checked: 'not checked',
};

/** RFC 4180: quote a field holding a comma, a quote or a line break; a leading =+-@ is neutralised too,
 * so a spreadsheet never runs a trainee-chosen name as a formula. */
function field(value: string | number | boolean | null): string {
  let text = value === null ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const csv = (rows: (string | number | boolean | null)[][]) =>
  `${rows.map((r) => r.map(field).join(',')).join('\r\n')}\r\n`;

export function renderCsv(report: ClassReport): string {
  const header = [
    'trainee',
    'lab_state',
    'checked_at',
    'requested',
    ...report.stages,
    'next_stage',
    'next_hint',
    'next_node',
    'stuck_since',
    'next_run_url',
    'checks',
    ...report.stages.map((s) => `${s}_first_passed`),
    'runs',
    'last_run_started_at',
    'last_run_reached',
    'last_run_verdict',
    'last_run_unmet_stage',
    'last_run_url',
    ...report.stages.map((s) => `${s}_tries`),
  ];
  const rows = report.labs.map((lab) => [
    lab.name,
    lab.state,
    lab.check === 'checked' ? lab.checked_at : lab.check === 'never' ? 'never checked' : 'unreadable report',
    lab.requested,
    ...report.stages.map((s) => VERDICT_LABEL[lab.stages[s].verdict]),
    lab.next_stage,
    lab.next_hint,
    lab.next_node,
    lab.stuck?.since ?? null,
    lab.next_run_url,
    lab.checks,
    ...report.stages.map((s) => lab.stages[s].first_passed_at),
    lab.runs?.total ?? null,
    lab.runs?.last?.started_at ?? null,
    lab.runs?.last?.reached ?? null,
    lab.runs?.last?.verdict ?? null,
    lab.runs?.last?.unmet_stage ?? null,
    lab.runs?.last?.url ?? null,
    ...report.stages.map((s) => (lab.runs === null ? null : (lab.runs.tries[s] ?? 0))),
  ]);
  return csv([header, ...rows]);
}

/** Every check of every lab, oldest first per trainee: the day's progress for a spreadsheet. */
export function renderHistoryCsv(report: ClassReport): string {
  const header = [
    'trainee',
    'at',
    'requested',
    'passed',
    ...STAGE_NAMES,
    'first_failed',
    'first_hint',
    'first_node',
    'first_run_url',
  ];
  const rows = report.labs.flatMap((lab) =>
    lab.history.map((line) => [
      lab.name,
      line.at,
      line.requested,
      line.passed,
      ...STAGE_NAMES.map((s) => {
        const verdict = line.stages[s];
        return verdict === undefined ? 'not checked' : VERDICT_LABEL[verdict];
      }),
      line.first_failed,
      line.first_hint,
      line.first_node,
      line.first_run_url,
    ]),
  );
  return csv([header, ...rows]);
}
