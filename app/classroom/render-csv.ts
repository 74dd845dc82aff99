/** The class report as CSV: one row per trainee, one column per stage (PASS, FAIL, UNJUDGED, not checked). */
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

export function renderCsv(report: ClassReport): string {
  const header = [
    'trainee',
    'lab_up',
    'checked_at',
    'requested',
    ...report.stages,
    'next_stage',
    'next_hint',
  ];
  const rows = report.labs.map((lab) => [
    lab.name,
    lab.up ? 'up' : 'down',
    lab.check === 'checked' ? lab.checked_at : lab.check === 'never' ? 'never checked' : 'unreadable report',
    lab.requested,
    ...report.stages.map((s) => VERDICT_LABEL[lab.stages[s].verdict]),
    lab.next_stage,
    lab.next_hint,
  ]);
  return `${[header, ...rows].map((r) => r.map(field).join(',')).join('\r\n')}\r\n`;
}
