/**
 * The console's "Your runs" panel as a trainee sees it, in Chromium, on a real lab (test/lab/tutor.sh): the
 * console's page signed in (CONSOLE_SECRET, when the lab has one), its own controls pressed, and what the
 * panel draws read from the page. Each card is timed as it appears (a MutationObserver on the page: the
 * first moment a run is drawn in a status), and given with the tutor's view of it (GET /api/runs, as the
 * page's own origin reads it: its `stopped_at` is n8n's stoppedAt). The shell judges the JSON written to
 * OUT against n8n's own record of the runs.
 *   tutor-panel.ts alert  --console URL --kind KIND [--approve] --out OUT   a test alert (Send a test alert);
 *        its card once the run has ended, or, with --approve, once it waits, then Approve (the approval's
 *        own control), and its card once it has ended
 *   tutor-panel.ts pair   --console URL --kind KIND --out OUT    two test alerts at once (two presses, the
 *        second before the first is answered), both cards once both runs have ended
 *   tutor-panel.ts editor --console URL --n8n URL --workflow ID [--path P] --out OUT   n8n's editor signed in
 *        (TRAINEE_EMAIL, TRAINEE_PASSWORD), the workflow opened, Execute workflow pressed; once it waits for
 *        its trigger a low-confidence alert is POSTed to /webhook-test/P; the card of that run
 *   tutor-panel.ts series --console URL --kind KIND --runs N --every-ms MS [--ready FILE] --out OUT   N test
 *        alerts, one every MS, each card timed once its run has ended
 *   tutor-panel.ts watch  --console URL --until FILE [--ready FILE] --out OUT   the page held open until FILE
 *        exists (at most 10 minutes), then every card it drew
 *   tutor-panel.ts waiting --console URL --kind KIND --out OUT  a test alert, its card once it waits
 *   tutor-panel.ts reset  --console URL --kind KIND --out OUT   a test alert, its card once it waits, then
 *        Reset pressed on the page (and confirmed), its card once it has ended
 *   tutor-panel.ts follow --console URL --kind KIND --runs N --out OUT   a test alert, its card once it
 *        waits, then N low-confidence test alerts each to its end, then Approve: its card once it has ended
 *   tutor-panel.ts runs-file FILE    reports/runs.json parsed with RunsFileSchema: its total, tries and runs
 * --ready FILE is written once the page is live. One line on success; exit 1 with one line on failure, 2 on usage.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { BrowserContext } from 'playwright-core';
import { RunsFileSchema } from '../../app/runs/file.js';
import { alertPayload, LAB_ADDRESS, LAB_USER, TEST_ALERTS } from '../../app/workflow/scenario.js';
import { ACTION_MS, currentStep, doing, say, VIEWPORT } from '../editor/editor-kit.js';
import { launchChromium } from '../helpers/chromium.js';
import {
  type Card,
  ENDED,
  KINDS,
  openConsole,
  type Panel,
  signInToN8n,
  str,
  UsageError,
  type Values,
} from './panel-kit.js';

const USAGE =
  'usage: tutor-panel.ts alert|pair|editor|series|watch|waiting|reset|follow --console URL [--kind KIND] [--approve] [--n8n URL --workflow ID] [--runs N --every-ms MS] [--until FILE] [--ready FILE] --out OUT | runs-file FILE';
/** Test alerts sent at once while a run waits (follow): the console takes them one press after another. */
const BATCH = 5;

async function alert(panel: Panel, v: Values): Promise<unknown> {
  const kind = str(v, 'kind');
  const [sent] = await panel.sendAlerts(kind);
  if (sent === undefined) throw new Error('no answer');
  if (!v.approve) {
    doing(`waiting for the card of ${sent.event_id}`);
    const [card] = await panel.timed([await panel.cardOf(sent.event_id, ENDED)]);
    say(
      `${sent.event_id}: run ${card?.execution} ${card?.status}, ${card?.verdict}, on the page ${card?.latency_ms} ms after it ended`,
    );
    return { sent: [sent], card };
  }
  doing(`waiting for the card of ${sent.event_id}, waiting for its approval`);
  const [waiting] = await panel.timed([await panel.cardOf(sent.event_id, ['waiting'])]);
  doing(`pressing Approve on the approval request of ${sent.event_id}`);
  const approve = panel.page.locator(`.approval[data-event="${sent.event_id}"] button.approve`);
  const [answer] = await Promise.all([
    panel.page.waitForResponse(
      (r) => r.url() === `${panel.url}/api/approve` && r.request().method() === 'POST',
    ),
    approve.click(),
  ]);
  const approved: unknown = await answer.json();
  doing(`waiting for the card of ${sent.event_id} once the run has ended`);
  const ended = await panel.cardOf(sent.event_id, ENDED);
  const [card] = await panel.timed([ended]);
  const same = (await panel.cards()).filter((c) => c.execution === ended.execution).length;
  say(
    `${sent.event_id}: run ${card?.execution} waited (${waiting?.verdict}), approved, then ${card?.status}, ${card?.verdict}, ${card?.latency_ms} ms after it ended`,
  );
  return { sent: [sent], waiting, approved, card, cards_of_run: same };
}

async function pair(panel: Panel, v: Values): Promise<unknown> {
  const sent = await panel.sendAlerts(str(v, 'kind'), 2);
  doing(`waiting for the cards of ${sent.map((s) => s.event_id).join(' and ')}`);
  const cards: Card[] = [];
  for (const s of sent) cards.push(await panel.cardOf(s.event_id, ENDED));
  // Both drawn in their ended status: read again, the later explanation of one may have redrawn the other.
  const again = (await panel.cards()).filter((c) => cards.some((x) => x.execution === c.execution));
  const timed = await panel.timed(again);
  say(timed.map((c) => `${c.event}: run ${c.execution} ${c.verdict}`).join('; '));
  return { sent, cards: timed };
}

async function editor(panel: Panel, context: BrowserContext, v: Values): Promise<unknown> {
  const n8n = str(v, 'n8n').replace(/\/+$/, '');
  const workflow = str(v, 'workflow');
  const path = typeof v.path === 'string' ? v.path : 'suspicious-login';
  const page = await context.newPage();
  page.setDefaultTimeout(ACTION_MS);
  await signInToN8n(page, n8n);
  doing(`opening the workflow ${n8n}/workflow/${workflow}`);
  await page.goto(`${n8n}/workflow/${workflow}`);
  await page.locator('[data-test-id="canvas-node"]').first().waitFor();
  // 2.41.1's canvas button "Execute workflow" (data-test-id execute-workflow-button); with a Webhook as the
  // trigger it then says "Waiting for trigger event" and n8n listens once on /webhook-test/<path>.
  doing('pressing Execute workflow');
  await page.keyboard.press('Escape');
  await page
    .locator('[data-test-id="execute-workflow-button"]')
    .filter({ hasText: 'Execute workflow' })
    .click();
  await page.getByText('Waiting for trigger event').first().waitFor();
  const event = `evt-tutor-editor-${Date.now()}`;
  const body = alertPayload(
    { eventId: event, sourceIp: LAB_ADDRESS, user: LAB_USER },
    TEST_ALERTS.low_confidence,
  );
  doing(`POSTing ${event} to ${n8n}/webhook-test/${path}`);
  const answer = await fetch(`${n8n}/webhook-test/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(ACTION_MS),
  });
  if (answer.status !== 200)
    throw new Error(`the test URL answered ${answer.status}: ${(await answer.text()).slice(0, 160)}`);
  doing(`waiting for the card of ${event}`);
  const [card] = await panel.timed([await panel.cardOf(event, ENDED)]);
  say(
    `${event}: run ${card?.execution} ${card?.how}, ${card?.verdict}, ${card?.latency_ms} ms after it ended`,
  );
  return { sent: [{ event_id: event, status: answer.status }], card };
}

async function series(panel: Panel, v: Values): Promise<unknown> {
  const kind = str(v, 'kind');
  const runs = Number(str(v, 'runs'));
  const every = Number(str(v, 'every-ms'));
  const events: string[] = [];
  // A moment first for whoever waits on --ready to start measuring the console.
  if (typeof v.ready === 'string') await panel.page.waitForTimeout(2_000);
  const start = Date.now();
  for (let i = 0; i < runs; i += 1) {
    await panel.page.waitForTimeout(Math.max(0, start + i * every - Date.now()));
    const [sent] = await panel.sendAlerts(kind);
    if (sent !== undefined) events.push(sent.event_id);
  }
  doing(`waiting for the cards of ${runs} runs`);
  const cards: Card[] = [];
  for (const event of events) cards.push(await panel.cardOf(event, ENDED));
  const timed = await panel.timed(cards);
  const latencies = timed.flatMap((c) => (c.latency_ms === null ? [] : [c.latency_ms])).sort((a, b) => a - b);
  say(`${timed.length} runs on the page, ${latencies[0]} to ${latencies.at(-1)} ms after they ended`);
  return { sent: events, cards: timed };
}

async function watch(panel: Panel, v: Values): Promise<unknown> {
  const until = str(v, 'until');
  const end = Date.now() + 600_000;
  doing(`holding the page open until ${until} exists`);
  while (!existsSync(until) && Date.now() < end) await panel.page.waitForTimeout(250);
  const cards = await panel.timed(await panel.cards());
  say(`the page drew ${cards.length} cards`);
  return { cards, view: await panel.view() };
}

/** A test alert of KIND sent, and its card once its run waits for its approval. */
async function sentWaiting(
  panel: Panel,
  kind: string,
): Promise<{ sent: { event_id: string }; waiting: Card }> {
  const [sent] = await panel.sendAlerts(kind);
  if (sent === undefined) throw new Error('no answer');
  doing(`waiting for the card of ${sent.event_id}, waiting for its approval`);
  return { sent, waiting: await panel.cardOf(sent.event_id, ['waiting']) };
}

/** A run waiting for its approval, then Reset pressed on the page (and confirmed): its card after. */
async function reset(panel: Panel, v: Values): Promise<unknown> {
  const { sent, waiting } = await sentWaiting(panel, str(v, 'kind'));
  doing('pressing Reset, then confirming it');
  await panel.page.locator('#reset').click();
  const [answer] = await Promise.all([
    panel.page.waitForResponse(
      (r) => r.url() === `${panel.url}/api/reset` && r.request().method() === 'POST',
    ),
    panel.page.locator('#reset-confirm').click(),
  ]);
  const reset: unknown = await answer.json();
  doing(`waiting for the card of ${sent.event_id} once its run has ended`);
  const card = await panel.cardOf(sent.event_id, ENDED);
  say(
    `${sent.event_id}: run ${card.execution} waited, Reset pressed, then ${card.status}, ${card.verdict}: ${card.summary}`,
  );
  return { sent: [sent], waiting, reset, card };
}

/**
 * A run waiting for its approval, then --runs N low-confidence test alerts (BATCH at once) each run to its
 * end, then Approve pressed: the waiting run's card once it has ended, and the cards of the runs between.
 */
async function follow(panel: Panel, v: Values): Promise<unknown> {
  const { sent, waiting } = await sentWaiting(panel, str(v, 'kind'));
  const runs = Number(str(v, 'runs'));
  const between: string[] = [];
  for (let i = 0; i < runs; i += BATCH)
    for (const s of await panel.sendAlerts('low_confidence', Math.min(BATCH, runs - i)))
      between.push(s.event_id);
  doing(`waiting for the cards of the ${runs} runs sent while ${sent.event_id} waits`);
  const cards: Card[] = [];
  for (const event of between) cards.push(await panel.cardOf(event, ENDED));
  doing(`pressing Approve on the approval request of ${sent.event_id}`);
  const [answer] = await Promise.all([
    panel.page.waitForResponse(
      (r) => r.url() === `${panel.url}/api/approve` && r.request().method() === 'POST',
    ),
    panel.page.locator(`.approval[data-event="${sent.event_id}"] button.approve`).click(),
  ]);
  const approved: unknown = await answer.json();
  doing(`waiting for the card of ${sent.event_id} once the run has ended`);
  const card = await panel.cardOf(sent.event_id, ENDED);
  say(
    `${sent.event_id}: run ${card.execution} waited behind ${cards.length} runs, approved, then ${card.verdict}: ${card.summary}`,
  );
  return { sent: [sent], waiting, between: cards, approved, card };
}

function runsFile(file: string): void {
  const parsed = RunsFileSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  process.stdout.write(`${JSON.stringify(parsed)}\n`);
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      console: { type: 'string' },
      kind: { type: 'string' },
      approve: { type: 'boolean' },
      n8n: { type: 'string' },
      workflow: { type: 'string' },
      path: { type: 'string' },
      runs: { type: 'string' },
      'every-ms': { type: 'string' },
      until: { type: 'string' },
      ready: { type: 'string' },
      out: { type: 'string' },
    },
  });
  const [command, file] = positionals;
  if (command === 'runs-file') {
    if (file === undefined) throw new UsageError('runs-file FILE');
    runsFile(file);
    return;
  }
  const url = str(values, 'console').replace(/\/+$/, '');
  const out = str(values, 'out');
  if (values.kind !== undefined && !KINDS.some((k) => k === values.kind))
    throw new UsageError(`--kind is one of ${KINDS.join(', ')}`);
  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ viewport: VIEWPORT });
    const panel = await openConsole(context, url);
    if (typeof values.ready === 'string') writeFileSync(values.ready, `${Date.now()}\n`);
    let result: unknown;
    if (command === 'alert') result = await alert(panel, values);
    else if (command === 'pair') result = await pair(panel, values);
    else if (command === 'editor') result = await editor(panel, context, values);
    else if (command === 'series') result = await series(panel, values);
    else if (command === 'watch') result = await watch(panel, values);
    else if (command === 'reset') result = await reset(panel, values);
    else if (command === 'waiting') result = await sentWaiting(panel, str(values, 'kind'));
    else if (command === 'follow') result = await follow(panel, values);
    else throw new UsageError(`unknown command ${command ?? '(none)'}`);
    writeFileSync(out, `${JSON.stringify(result, null, 1)}\n`);
  } finally {
    await browser.close();
  }
}

main().catch((err: unknown) => {
  const message = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
  if (err instanceof UsageError) {
    process.stderr.write(`tutor-panel: ${message}; ${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  process.stderr.write(`tutor-panel: ${currentStep()}: ${message}\n`);
  process.exitCode = 1;
});
