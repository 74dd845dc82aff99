/**
 * The console in a real browser (Debian's chromium driven by playwright-core): the reference workflow
 * runs against the mock API; the page shows the approval request, Approve resumes the run, the block
 * counts down, the case shows its approver, the clock moves and the entry expires, reset clears it.
 * Then what a hostile page can try: a cross-origin POST, a preflighted one, a rebound Host name, and an
 * inline script under the CSP. Run by `make test-console` (test/browser/run.sh installs chromium).
 * SCREENSHOTS=<dir> also writes the screenshots the docs use.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleLab, startConsoleLab } from '../console/harness.js';
import { type ChromiumSession, openChromium } from '../helpers/chromium.js';

const SHOTS = process.env.SCREENSHOTS;
const IP = '203.0.113.66';

let lab: ConsoleLab;
let browser: ChromiumSession;
let context: BrowserContext;
let page: Page;
let evil: Server;
let evilUrl: string;

async function shot(name: string) {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, name), fullPage: true });
}

/** The mock API's state, read directly (not through the console). */
async function apiState(): Promise<unknown> {
  const state = (await (await fetch(`${lab.api.url}/state`)).json()) as Record<string, unknown>;
  return { ...state, now: undefined };
}

beforeAll(async () => {
  lab = await startConsoleLab();
  const port = new URL(lab.consoleUrl).port;
  // DNS rebinding, simulated: this name resolves to the console's loopback address.
  browser = await openChromium(['--host-resolver-rules=MAP rebound.test 127.0.0.1']);
  ({ context, page } = browser);
  // A page on another origin (another loopback port) that attacks the console.
  evil = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end('<!doctype html><title>elsewhere</title>');
  });
  await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
  evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
  expect(port).not.toBe('');
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => evil?.close(r));
  await lab?.stop();
});

describe('the lab console in chromium', () => {
  it('approve, block with a moving countdown, case with its approver, expiry by the clock, reset', async () => {
    await page.goto(lab.consoleUrl);
    await expect.poll(() => page.textContent('#conn')).toBe('live');
    expect(await page.textContent('#source')).toContain(`unix:${lab.socketPath}`);

    await page.click('button.alert[data-kind="positive"]');
    const pending = page.locator('.approval.pending');
    await pending.waitFor({ timeout: 10_000 });
    expect(await pending.textContent()).toContain(`block ${IP}`);
    await page.fill('#approver', 'browser-trainee');
    await shot('console-approval.png');
    await pending.locator('button.approve').click();
    await expect
      .poll(() => page.textContent('#message'), { timeout: 10_000 })
      .toContain('accepted the decision');

    const countdown = page.locator(`tr.block[data-ip="${IP}"] .countdown`);
    await countdown.waitFor({ timeout: 10_000 });
    const first = await countdown.textContent();
    expect(first).toMatch(/^(10:00|9:[0-5]\d)$/);
    await expect.poll(() => countdown.textContent(), { timeout: 4000, interval: 300 }).not.toBe(first);

    const caseRow = page.locator('tr.case-row').first();
    await expect
      .poll(() => caseRow.locator('td.approver').textContent(), { timeout: 10_000 })
      .toBe('browser-trainee');
    expect(await caseRow.locator('td.result').textContent()).toBe('blocked');
    expect(await page.locator('.approval').first().getAttribute('class')).toContain('closed');
    await shot('console-blocked.png');
    await caseRow.click();
    expect(await page.locator('tr.case-detail pre').textContent()).toContain('"approver": "browser-trainee"');
    await caseRow.click();
    expect(await page.locator('tr.case-detail').count()).toBe(0);

    await page.click('button.clock[data-minutes="11"]');
    await page.locator(`tr.removed[data-ip="${IP}"] .why`).waitFor({ timeout: 10_000 });
    expect(await page.textContent(`tr.removed[data-ip="${IP}"] .why`)).toBe('expired');
    expect(await page.locator('tr.block').count()).toBe(0);
    expect(await page.textContent('#journal')).toContain('POST /control/clock');
    expect(await page.textContent('#message')).toContain('the service clock is now');
    await shot('console-expired.png');

    await page.click('#reset');
    await page.click('#reset-confirm');
    await expect.poll(() => page.textContent('#cases'), { timeout: 10_000 }).toBe('No cases yet.');
    expect(await page.textContent('#history')).toBe('No history.');
  }, 60_000);

  it('shows the stage checker’s last report when the file appears', async () => {
    // The shape of app/check-report/report.ts (branch checker), trimmed to what is shown.
    const at = new Date().toISOString();
    const report = {
      kind: 'stage-check',
      requested: 'all',
      target: 'n8n',
      finished_at: at,
      passed: false,
      stages: [
        { stage: 'webhook', status: 'pass', counts: { pass: 2, fail: 0, unjudged: 0 } },
        { stage: 'validate', status: 'fail', counts: { pass: 1, fail: 1, unjudged: 1 } },
      ],
      results: [
        {
          stage: 'validate',
          stimulus: 'alert without source_ip',
          expectation: 'an invalid alert is recorded and nothing is blocked',
          status: 'fail',
          hint: 'check source_ip before anything else',
          detail: null,
          at,
        },
      ],
    };
    writeFileSync(join(lab.dir, 'check-last.json'), JSON.stringify(report));
    await expect
      .poll(() => page.textContent('#check'), { timeout: 5000 })
      .toContain('Last stage check: fail');
    const text = await page.textContent('#check');
    expect(text).toContain('validate (1 pass, 1 fail, 1 unjudged)');
    expect(text).toContain('→ check source_ip before anything else');
    writeFileSync(join(lab.dir, 'check-last.json'), JSON.stringify({ ...report, passed: true }));
    await expect
      .poll(() => page.textContent('#check'), { timeout: 5000 })
      .toContain('Last stage check: pass');
  });

  it('refuses state changes from another origin, with and without a preflight; no CORS', async () => {
    const token = await page.getAttribute('meta[name="console-token"]', 'content');
    // Something a reset would undo: the connector failed, a request in the journal.
    await page.selectOption('#mode', 'failed');
    await page.click('#set-mode');
    await expect.poll(() => page.textContent('#case-mode')).toBe('failed');
    const before = await apiState();
    const other = await context.newPage();
    await other.goto(evilUrl);
    const outcome = await other.evaluate(
      async ({ url, token }) => {
        const simple = await fetch(`${url}/api/reset`, {
          method: 'POST',
          mode: 'no-cors',
          headers: { 'content-type': 'text/plain' },
          body: '{"confirm":true}',
        }).then(
          (r) => `answered ${r.type}`,
          () => 'blocked by the browser',
        );
        const preflighted = await fetch(`${url}/api/clock`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-console-token': String(token) },
          body: '{"advance_minutes":60}',
        }).then(
          (r) => `status ${r.status}`,
          () => 'blocked by the browser',
        );
        const read = await fetch(`${url}/api/session`).then(
          (r) => `status ${r.status}`,
          () => 'blocked by the browser',
        );
        return { simple, preflighted, read };
      },
      { url: lab.consoleUrl, token },
    );
    await other.close();
    expect(outcome).toEqual({
      // CORP same-origin: chromium does not even hand over the opaque answer.
      simple: 'blocked by the browser',
      preflighted: 'blocked by the browser',
      read: 'blocked by the browser',
    });
    const after = await apiState();
    expect(after).toEqual(before);

    // The control: the same POST from the console's own page goes through.
    const own = await page.evaluate(async (token) => {
      const r = await fetch('/api/clock', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-console-token': String(token) },
        body: '{"advance_minutes":1}',
      });
      return r.status;
    }, token);
    expect(own).toBe(200);
  });

  it('refuses a Host it does not serve (DNS rebinding) in the browser', async () => {
    const port = new URL(lab.consoleUrl).port;
    const other = await context.newPage();
    const res = await other.goto(`http://rebound.test:${port}/`);
    expect(res?.status()).toBe(421);
    expect(await other.textContent('body')).toContain('host_not_allowed');
    await other.close();
  });

  it('runs under a strict CSP: an injected inline script does not run', async () => {
    const res = await page.goto(lab.consoleUrl);
    expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
    // A string: this file is type-checked without the DOM library.
    const ran = (await page.evaluate(`(async () => {
      const violations = [];
      document.addEventListener('securitypolicyviolation', (e) => violations.push(e.violatedDirective));
      const s = document.createElement('script');
      s.textContent = 'window.injected = true';
      document.body.append(s);
      await new Promise((r) => setTimeout(r, 100));
      return { injected: window.injected === true, violations };
    })()`)) as { injected: boolean; violations: string[] };
    expect(ran.injected).toBe(false);
    expect(ran.violations.join()).toContain('script-src');
  });
});
