/**
 * n8n's editor through the console's editor gate across the gate's life cap (part of test/editor/run.sh):
 * signed in through the gate, a workflow with a Manual Trigger open on the canvas; the gate closes the
 * editor's push connection (n8n's WebSocket) when its life cap ends; then "Execute workflow" is clicked
 * and the run's result, which reaches the canvas over n8n's push only, must show on the trigger node.
 * Prints one line a step; exit 0 when the result showed, 1 when it did not (or a step failed).
 *   TRAINEE_EMAIL=... TRAINEE_PASSWORD=... npx tsx test/editor/gate-life.ts --gate URL --life-ms MS
 */
import { parseArgs } from 'node:util';
import type { WebSocket } from 'playwright-core';
import { CHROMIUM_PATH, launchChromium } from '../helpers/chromium.js';
import { ACTION_MS, VIEWPORT } from './editor-kit.js';

const { values } = parseArgs({ options: { gate: { type: 'string' }, 'life-ms': { type: 'string' } } });
const gate = values.gate ?? '';
const lifeMs = Number(values['life-ms']);
const email = process.env.TRAINEE_EMAIL ?? '';
const password = process.env.TRAINEE_PASSWORD ?? '';
if (!gate || !(lifeMs > 0) || !email || !password) {
  console.error('usage: TRAINEE_EMAIL=... TRAINEE_PASSWORD=... gate-life.ts --gate URL --life-ms MS');
  process.exit(2);
}

const t0 = Date.now();
const at = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
const say = (line: string) => console.log(`[${at()}] ${line}`);

/** The editor's push connections, each with when it opened and closed (ms since t0). */
const pushes: { opened: number; closed: number | null }[] = [];

async function main(): Promise<boolean> {
  const browser = await launchChromium(process.env.CHROMIUM || CHROMIUM_PATH);
  try {
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    page.setDefaultTimeout(ACTION_MS);
    page.on('websocket', (ws: WebSocket) => {
      if (!ws.url().includes('/rest/push')) return;
      const push = { opened: Date.now() - t0, closed: null as number | null };
      pushes.push(push);
      say(`push connection ${pushes.length} opened`);
      ws.on('close', () => {
        push.closed = Date.now() - t0;
        say(
          `push connection ${pushes.indexOf(push) + 1} closed after ${((push.closed - push.opened) / 1000).toFixed(1)} s`,
        );
      });
    });
    await page.goto(`${gate}/`);
    await page.waitForURL(/\/signin/);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => !/^\/(signin)?$/.test(url.pathname));
    say(`signed in through the gate: ${new URL(page.url()).pathname}`);
    // A workflow with a Manual Trigger, made through the editor's own REST API: the session's cookie and
    // the browser id the editor keeps beside it (n8n ties its session to it).
    const browserId = await page.evaluate<string>("localStorage.getItem('n8n-browserId') ?? ''");
    const made = await page.request.post(`${gate}/rest/workflows`, {
      headers: { 'browser-id': browserId },
      data: {
        name: 'Gate life',
        nodes: [
          {
            id: 'c0ffee00-0000-4000-8000-000000000001',
            name: 'Start',
            type: 'n8n-nodes-base.manualTrigger',
            typeVersion: 1,
            position: [0, 0],
            parameters: {},
          },
        ],
        connections: {},
        settings: {},
        active: false,
      },
    });
    const id = ((await made.json()) as { data?: { id?: string } }).data?.id;
    if (!id) throw new Error(`n8n did not create the workflow (${made.status()})`);
    await page.goto(`${gate}/workflow/${id}`);
    const run = page.locator('[data-test-id="execute-workflow-button"]').first();
    await run.waitFor();
    say('the workflow is open on the canvas');
    // The canvas's push connection (the overview's closed with its page), closed by the gate when its
    // life ends: nothing else closes it then.
    const first = pushes.at(-1);
    if (!first || first.closed !== null) throw new Error('the canvas has no push connection open');
    const deadline = Date.now() + lifeMs + 10_000;
    while (first.closed === null && Date.now() < deadline) await page.waitForTimeout(250);
    if (first.closed === null) throw new Error(`the first push connection still open after ${at()}`);
    const lived = first.closed - first.opened;
    if (lived < lifeMs - 1000 || lived > lifeMs + 3000) {
      throw new Error(
        `the canvas's push connection closed after ${lived} ms, not at the gate's cap (${lifeMs} ms)`,
      );
    }
    say(
      `the gate closed the canvas's push connection at its life cap (${(lived / 1000).toFixed(1)} s, cap ${lifeMs / 1000} s)`,
    );
    await page.waitForTimeout(3000);
    await run.click();
    say('clicked Execute workflow');
    const ok = await page
      .locator('[data-test-id="canvas-node-status-success"]')
      .first()
      .waitFor({ timeout: 15_000 })
      .then(
        () => true,
        () => false,
      );
    const open = pushes.filter((p) => p.closed === null).length;
    say(`${pushes.length} push connections in all, ${open} open now`);
    say(ok ? "the run's result shows on the canvas (over push)" : 'no result on the canvas in 15 s');
    return ok;
  } finally {
    await browser.close();
  }
}

main().then(
  (ok) => process.exit(ok ? 0 : 1),
  (err: unknown) => {
    console.error(`gate-life: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`);
    process.exit(1);
  },
);
