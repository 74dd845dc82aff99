/**
 * The "Your runs" panel in a real browser: the console (real entry point, N8N_API_KEY set, polling every
 * second as by default) asks a stand-in of n8n 2.41.1's public API for the trainee's runs (its list leaves
 * running executions out unless asked with status=running) and its tutor explains each as it ends, with
 * the real explainer on the mock API's state. The run's address is served by the same stand-in as n8n's
 * editor, so the new tab shows what it opened. Measured: from the moment a run ends in n8n to its card on
 * the page. SCREENSHOTS=<dir> also writes console-runs.png.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunsFileSchema } from '../../app/runs/file.js';
import type { TutorView } from '../../app/tutor/tutor-view.js';
import { alertPayload, LAB_ADDRESS, LAB_USER, TEST_ALERTS } from '../../app/workflow/scenario.js';
import { type ConsoleLab, startConsoleLab } from '../console/harness.js';
import { type ChromiumSession, openChromium } from '../helpers/chromium.js';
import { send, standIn } from '../n8n/stand-in.js';

const KEY = 'tutor-test-key';
const SHOTS = process.env.SCREENSHOTS;
/** The tutor's promise: a run explained on the page within 2 s of its end. */
const WITHIN_MS = 2_000;
const NAME = '<b>Suspicious</b> Login Response';
const ENRICH = '<img src=x onerror="document.title=1">Enrich';
/** The names of the guide's workflow, for the runs the screenshot shows. */
const CLEAN = { workflow: 'Suspicious Login Response', enrich: 'Enrich' };

type Execution = Record<string, unknown> & { id: string; status: string; startedAt: string };
const executions = new Map<string, Execution>();
let n8nDown = false;
let editorUrl: string;
let lab: ConsoleLab;
let browser: ChromiumSession;
let page: Page;

/** A run of the alert webhook as n8n 2.41.1 keeps it: Webhook, Validate, then Enrich (errored) or a Wait. */
function execution(
  id: string,
  status: string,
  startedAt: Date,
  stoppedAt: Date | null,
  mode = 'webhook',
  names = { workflow: NAME, enrich: ENRICH },
): Execution {
  const enrich = names.enrich;
  const alert = alertPayload(
    { eventId: `evt-tutor-${id}`, sourceIp: LAB_ADDRESS, user: LAB_USER },
    TEST_ALERTS.positive,
  );
  const item = (json: unknown) => ({ main: [[{ json }]] });
  const waits = status === 'waiting';
  const runData: Record<string, unknown[]> = {
    Webhook: [{ executionIndex: 0, data: item({ headers: { host: 'n8n:5678' }, body: alert }) }],
    Validate: [{ executionIndex: 1, data: item(alert) }],
    [enrich]: [
      waits
        ? { executionIndex: 2, data: item({ user: LAB_USER, role: 'administrator' }) }
        : { executionIndex: 2, error: { message: 'connect ECONNREFUSED 10.9.9.9:8081' }, data: null },
    ],
    ...(waits ? { 'Wait for approval': [{ executionIndex: 3, data: null }] } : {}),
  };
  return {
    id,
    status,
    mode,
    finished: status === 'success',
    startedAt: startedAt.toISOString(),
    stoppedAt: stoppedAt?.toISOString() ?? null,
    workflowId: 'wf-1',
    workflowData: {
      name: names.workflow,
      nodes: [
        {
          id: 'n-hook',
          name: 'Webhook',
          type: 'n8n-nodes-base.webhook',
          parameters: { path: 'suspicious-login' },
        },
        { id: 'n-validate', name: 'Validate', type: 'n8n-nodes-base.code', parameters: {} },
        {
          id: 'n-enrich',
          name: enrich,
          type: 'n8n-nodes-base.httpRequest',
          parameters: { url: "={{ $env.MOCK_API_URL }}/identity/{{ $('Webhook').first().json.body.user }}" },
        },
        { id: 'n-wait', name: 'Wait for approval', type: 'n8n-nodes-base.wait', parameters: {} },
      ],
    },
    data: { resultData: { runData, lastNodeExecuted: waits ? 'Wait for approval' : enrich } },
  };
}

const head = ({ workflowData: _w, data: _d, ...rest }: Execution) => rest;

beforeAll(async () => {
  const n8n = await standIn((call, res) => {
    const url = new URL(call.url, 'http://n8n');
    if (url.pathname.startsWith('/api/v1/')) {
      if (call.headers['x-n8n-api-key'] !== KEY) return send(res, 401, { message: 'unauthorized' });
      if (n8nDown) return send(res, 503, { message: 'n8n is restarting' });
      if (url.pathname === '/api/v1/executions') {
        const status = url.searchParams.get('status');
        const listed = [...executions.values()]
          .filter((e) => (status === null ? e.status !== 'running' : e.status === status))
          .sort((a, b) => b.startedAt.localeCompare(a.startedAt))
          .slice(0, Number(url.searchParams.get('limit') ?? 20));
        return send(res, 200, { data: listed.map(head), nextCursor: null });
      }
      const found = executions.get(decodeURIComponent(url.pathname.replace('/api/v1/executions/', '')));
      if (found === undefined) return send(res, 404, { message: 'Not Found' });
      return send(res, 200, url.searchParams.get('includeData') === 'true' ? found : head(found));
    }
    // n8n's editor, as far as this test needs it: a page naming what it opened.
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>n8n</title><p id="opened">${call.url.replace(/[<>&"]/g, '')}</p>`);
  }, 'file');
  editorUrl = n8n.url;
  lab = await startConsoleLab({ N8N_URL: editorUrl, N8N_API_KEY: KEY, CONSOLE_POLL_MS: '1000' });
  browser = await openChromium();
  page = browser.page;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await lab?.stop();
});

const card = (id: string) => page.locator(`#runs .run-card[data-execution="${id}"]`);
const runsView = async (): Promise<TutorView> =>
  (await fetch(`${lab.consoleUrl}/api/runs`)).json() as Promise<TutorView>;

describe('Your runs, in chromium', () => {
  it('shows a run within 2 s of its end: alert, stages, what the systems received, the verdict, all as text', async () => {
    await page.goto(lab.consoleUrl);
    await expect.poll(() => page.textContent('#conn')).toBe('live');
    await expect.poll(() => page.textContent('#runs-card h2')).toContain('Your runs');
    expect(await page.textContent('#runs')).toContain('No runs yet.');

    const started = new Date(Date.now() - 1500);
    executions.set('101', execution('101', 'running', started, null));
    await new Promise((r) => setTimeout(r, 1500));
    // Running: not explained yet.
    expect(await card('101').count()).toBe(0);

    const ended = new Date();
    executions.set('101', execution('101', 'error', started, ended));
    await card('101').waitFor({ timeout: 5_000 });
    const tookMs = Date.now() - ended.getTime();
    console.log(`run 101 on the page ${tookMs} ms after it ended`);
    expect(tookMs).toBeLessThan(WITHIN_MS);

    const explained = (await runsView()).runs.find((r) => r.execution_id === '101');
    if (explained === undefined) throw new Error('GET /api/runs has no run 101');
    expect(explained.verdict).toBe('unmet');
    const c = card('101');
    expect(await c.getAttribute('data-verdict')).toBe('unmet');
    expect(await c.locator('.run-how').textContent()).toBe(` by webhook · ${NAME} · run 101 (error)`);
    expect(await c.locator('.run-when').getAttribute('title')).toBe(started.toISOString());
    expect(await c.locator('.run-alert').textContent()).toBe(
      `event evt-tutor-101 · user ${LAB_USER} · from ${LAB_ADDRESS} · confidence ${TEST_ALERTS.positive.confidence}`,
    );
    expect(await c.locator('.run-kind').textContent()).toBe(explained.kind_text);
    expect(await c.locator('.run-stages > li').count()).toBe(explained.stages.length);
    expect(await c.locator('.run-stages > li[data-stage="enrich"]').textContent()).toContain(ENRICH);
    expect(await c.locator('.run-summary').textContent()).toBe(explained.summary);
    expect(await c.locator('.run-received').textContent()).toContain('The four systems received: nothing');
    expect(await c.locator('.run-unmet').textContent()).toContain(explained.unmet?.expectation ?? '?');
    expect(await c.locator('.run-unmet .hint').textContent()).toBe(`→ ${explained.unmet?.hint}`);
    expect(await c.locator('.run-unmet .why').textContent()).toBe(
      `${ENRICH} errored: connect ECONNREFUSED 10.9.9.9:8081`,
    );
    // n8n's words are text: the node's markup is shown, not run; no element came out of it.
    expect(await page.locator('#runs img, #runs .run-how b').count()).toBe(0);
    expect(await page.title()).toBe('SOAR lab console');

    // The run's file for the class tools: one run, its unmet stage counted as a try.
    const file = RunsFileSchema.parse(JSON.parse(readFileSync(join(lab.dir, 'runs.json'), 'utf8')));
    expect(file.total).toBe(1);
    expect(file.runs.map((r) => [r.execution_id, r.verdict, r.unmet_stage])).toEqual([
      ['101', 'unmet', explained.unmet?.stage ?? null],
    ]);
    expect(file.tries).toEqual({ [explained.unmet?.stage ?? '?']: 1 });
  });

  it('links to the node to blame in that very run, in a new tab that cannot reach back', async () => {
    const link = card('101').locator('a.run-link');
    const url = `${editorUrl}/workflow/wf-1/executions/101/n-enrich`;
    expect(await link.getAttribute('href')).toBe(url);
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toBe('noopener');
    expect(await link.textContent()).toBe(`open ${ENRICH} in this run`);
    const [opened] = await Promise.all([browser.context.waitForEvent('page'), link.click()]);
    await opened.waitForLoadState();
    expect(opened.url()).toBe(url);
    expect(await opened.textContent('#opened')).toBe('/workflow/wf-1/executions/101/n-enrich');
    expect(await opened.evaluate('window.opener === null')).toBe(true);
    await opened.close();
    expect(page.url()).toBe(`${lab.consoleUrl}/`);
  });

  it('shows a waiting run as waiting, newest first, and replaces it once it ends; the file counts it once', async () => {
    const started = new Date();
    executions.set('102', execution('102', 'waiting', started, null, 'manual', CLEAN));
    await card('102').waitFor({ timeout: 5_000 });
    expect(
      await page
        .locator('#runs .run-card')
        .evaluateAll((cs) => cs.map((c) => c.getAttribute('data-execution'))),
    ).toEqual(['102', '101']);
    expect(await card('102').getAttribute('data-status')).toBe('waiting');
    expect(await card('102').locator('.run-tags').textContent()).toMatch(/^waiting/);
    expect(await card('102').locator('.run-how').textContent()).toBe(
      ` from the editor · ${CLEAN.workflow} · run 102 (waiting)`,
    );
    if (SHOTS) {
      // The panel's heading and the waiting run: the guide's names, not the markup of run 101.
      const top = await page.locator('#runs-card').boundingBox();
      const waiting = await card('102').boundingBox();
      if (top && waiting)
        await page.screenshot({
          path: join(SHOTS, 'console-runs.png'),
          clip: { x: top.x, y: top.y, width: top.width, height: waiting.y + waiting.height - top.y + 14 },
        });
    }

    executions.set('102', execution('102', 'error', started, new Date(), 'manual', CLEAN));
    await expect.poll(() => card('102').getAttribute('data-status'), { timeout: 5_000 }).toBe('error');
    expect(await card('102').count()).toBe(1);
    expect(await card('102').locator('.run-tags').textContent()).not.toMatch(/waiting/);
    const file = RunsFileSchema.parse(JSON.parse(readFileSync(join(lab.dir, 'runs.json'), 'utf8')));
    expect(file.total).toBe(2);
    expect(file.runs.map((r) => [r.execution_id, r.status])).toEqual([
      ['102', 'error'],
      ['101', 'error'],
    ]);
  });

  it("says when n8n does not answer, as the tutor's own state, keeping what it showed; clears it once n8n is back", async () => {
    n8nDown = true;
    await expect
      .poll(() => page.textContent('#runs-trouble'), { timeout: 5_000 })
      .toMatch(
        /^Your runs cannot be read from n8n just now \(n8n answered 503 to GET \/api\/v1\/executions: n8n is restarting\)/,
      );
    expect(await page.isVisible('#runs-trouble')).toBe(true);
    expect(await page.locator('#runs .run-card').count()).toBe(2);
    n8nDown = false;
    await expect.poll(() => page.isVisible('#runs-trouble'), { timeout: 5_000 }).toBe(false);
    expect((await runsView()).trouble).toBeNull();
  });
});
