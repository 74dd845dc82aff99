/**
 * One acceptance run: open the session (the mock API and the target), run the matrix, print the table, write the
 * report, and tear down everything it started. The CLI is a thin shell around this, and tests call it.
 */

import { openSession } from '../targets/session.js';
import type { Output } from '../tool-kit/output.js';
import type { RunnerCliOptions } from './options.js';
import { type AcceptanceReport, buildReport, formatTable, writeReport } from './report.js';
import { runMatrix } from './runner.js';

export async function runAcceptance(options: RunnerCliOptions, output: Output): Promise<AcceptanceReport> {
  const startedAt = new Date();
  const session = await openSession(options, output);
  const { api, target } = session;
  try {
    output.out(
      `acceptance: target ${target.name} at ${target.workflowUrl}, mock API ${api.describe}, ` +
        `approval limit ${target.approvalTimeoutSeconds} s, ${options.cases.length} case(s)`,
    );
    const cases = await runMatrix(options.cases, {
      api,
      workflowUrl: target.workflowUrl,
      approvalTimeoutSeconds: target.approvalTimeoutSeconds,
      resumeOrigin: options.resumeOrigin,
      timing: target.timing,
      ...(target.afterCase ? { afterCase: target.afterCase } : {}),
      onCaseDone: (result) =>
        output.err(`  ${result.case}: ${result.verdict} (${result.seconds.toFixed(2)} s)`),
    });
    const finishedAt = new Date();
    const report = buildReport({
      target: target.name,
      api: api.describe,
      workflow_url: target.workflowUrl,
      approval_timeout_seconds: target.approvalTimeoutSeconds,
      started_at: startedAt.toISOString(),
      finished_at: finishedAt.toISOString(),
      seconds: Math.round(finishedAt.getTime() - startedAt.getTime()) / 1000,
      cases,
    });
    output.out(formatTable(cases));
    await writeReport(options.reportPath, report);
    output.out(
      `\n${report.counts.pass} passed, ${report.counts.fail} failed in ${report.seconds.toFixed(1)} s; report: ${options.reportPath}`,
    );
    return report;
  } finally {
    await session.close();
  }
}
