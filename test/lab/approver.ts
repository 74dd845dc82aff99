/**
 * The approver of the lab's shell tests, through the harness's own rules (no second copy in shell):
 *   npx tsx test/lab/approver.ts resume-url EVENT_ID < state.json   the event's resume URL (app/judging/approval-request.ts)
 *   npx tsx test/lab/approver.ts decide URL DECISION                 POSTs it, retrying 409 (app/driver/resume.ts);
 *                                                                    prints the status, 000 when unreachable
 */

import { postResume } from '../../app/driver/resume.js';
import { resumeUrlIn } from '../../app/judging/approval-request.js';

async function stdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
}

const [command, first, second] = process.argv.slice(2);
if (command === 'resume-url' && first !== undefined) {
  const state = JSON.parse(await stdin()) as { notifications: { event_id?: unknown }[] };
  const url = state.notifications
    .filter((n) => n.event_id === first)
    .map(resumeUrlIn)
    .find(Boolean);
  if (url !== undefined) process.stdout.write(`${url}\n`);
} else if (command === 'decide' && first !== undefined && second !== undefined) {
  const body = { decision: second, approver: 'lab-test' };
  const status = await postResume(first, body, { retryOn: [409], retryForMs: 10_000, intervalMs: 500 }).then(
    (answer) => String(answer.status),
    () => '000',
  );
  process.stdout.write(`${status}\n`);
} else {
  process.stderr.write('usage: approver.ts resume-url EVENT_ID < state.json | decide URL DECISION\n');
  process.exitCode = 2;
}
