/** The runner's outputs: the table on the terminal and the JSON report (format in docs/acceptance.md). */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { TargetName } from '../targets/targets.js';
import type { CaseResult } from './runner.js';

export interface AcceptanceReport {
  target: TargetName;
  api: string;
  workflow_url: string;
  approval_timeout_seconds: number;
  started_at: string;
  finished_at: string;
  seconds: number;
  passed: boolean;
  counts: { pass: number; fail: number };
  cases: CaseResult[];
}

export function buildReport(fields: Omit<AcceptanceReport, 'passed' | 'counts'>): AcceptanceReport {
  const pass = fields.cases.filter((c) => c.verdict === 'pass').length;
  const fail = fields.cases.length - pass;
  return { ...fields, passed: fail === 0 && fields.cases.length > 0, counts: { pass, fail } };
}

export async function writeReport(path: string, report: AcceptanceReport): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(report, null, 2)}\n`);
}

/** case | expectation | observed | verdict | seconds, then the failed checks of each failed case. */
export function formatTable(results: readonly CaseResult[]): string {
  const rows = [
    ['case', 'expectation', 'observed', 'verdict', 'seconds'],
    ...results.map((r) => [r.case, r.expectation, r.observed, r.verdict.toUpperCase(), r.seconds.toFixed(2)]),
  ];
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  const line = (row: string[]) =>
    row
      .map((cell, column) =>
        column === row.length - 1 ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd();
  const out = [line(rows[0] ?? []), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)];
  for (const result of results.filter((r) => r.verdict === 'fail')) {
    out.push('', `${result.case} failed:`);
    for (const check of result.checks.filter((c) => !c.pass)) {
      out.push(`  - ${check.check}${check.detail === undefined ? '' : `: ${check.detail}`}`);
    }
    for (const note of result.notes) out.push(`  (runner: ${note})`);
  }
  return out.join('\n');
}
