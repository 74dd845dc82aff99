// The console's approvals on the real n8n (make test-console-n8n, via test/console/run-n8n.sh): a test
// alert through the console, then the fastest possible approver (it watches the mock API directly and
// hands the resume URL to the console at once), so n8n's early 409 "running already" is met and retried.
// Each round must end accepted, with the case recording the approver and the address blocked.
// Usage: node test/console/real-n8n.mjs CONSOLE_URL MOCK_API_URL [ROUNDS]
const [consoleUrl, apiUrl, roundsArg = '5'] = process.argv.slice(2);
const token = (await (await fetch(`${consoleUrl}/api/session`)).json()).token;
const post = async (path, body) =>
  (
    await fetch(`${consoleUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-console-token': token },
      body: JSON.stringify(body),
    })
  ).json();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const state = async () => (await fetch(`${apiUrl}/state`)).json();

let failures = 0;
let retried = 0;
for (let round = 1; round <= Number(roundsArg); round++) {
  await post('/api/reset', { confirm: true });
  const alert = await post('/api/alert', { kind: 'positive' });
  let request;
  const seenBy = Date.now() + 20_000;
  while (!request && Date.now() < seenBy) {
    request = (await state()).notifications.find((n) => n.event_id === alert.event_id && n.resume_url);
    if (!request) await sleep(5);
  }
  if (!request) {
    console.log(`round ${round}: FAIL no approval request within 20 s`);
    failures++;
    continue;
  }
  const decision = await post('/api/approve', {
    resume_url: request.resume_url,
    decision: 'approve',
    approver: `n8n-check-${round}`,
  });
  if (decision.attempts > 1) retried++;
  let kase;
  const doneBy = Date.now() + 20_000;
  while (!kase && Date.now() < doneBy) {
    kase = (await state()).cases.find((c) => c.event_id === alert.event_id);
    if (!kase) await sleep(100);
  }
  const blocked = (await state()).blocklist.some((b) => b.event_id === alert.event_id);
  const ok =
    decision.status === 200 &&
    kase?.approver === `n8n-check-${round}` &&
    kase?.result === 'blocked' &&
    blocked;
  if (!ok) failures++;
  console.log(
    `round ${round}: ${ok ? 'ok  ' : 'FAIL'} approve ${decision.status} after ${decision.attempts} tries; case ${kase?.result ?? 'missing'} by ${kase?.approver ?? '-'}; blocked ${blocked}`,
  );
}
console.log(
  `${Number(roundsArg) - failures} passed, ${failures} failed; ${retried} needed a retry of n8n's 409`,
);
process.exit(failures === 0 ? 0 : 1);
