/**
 * The Check control in a real browser, with the real stage checker (app/check/cli.ts, run by the
 * console as a child process through tsx) against the console's test set-up: the mock API on its Unix
 * socket and the reference workflow behind n8n's URLs. Choose a stage, Check, the checker's lines appear
 * as it prints them, a second Check is refused while it runs, then its report fills Last stage check.
 * SCREENSHOTS=<dir> also writes console-check.png for the docs.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAGE_NAMES } from '../../app/stages/stages.js';
import { type ConsoleLab, startConsoleLab } from '../console/harness.js';
import { type ChromiumSession, openChromium } from '../helpers/chromium.js';

const SHOTS = process.env.SCREENSHOTS;

let lab: ConsoleLab;
let browser: ChromiumSession;
let page: Page;

beforeAll(async () => {
  lab = await startConsoleLab({ CONSOLE_CHECKER: 'app/check/cli.ts', APPROVAL_TIMEOUT_SECONDS: '120' });
  browser = await openChromium();
  page = browser.page;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await lab?.stop();
});

describe('the Check control in chromium', () => {
  it('choose a stage, Check, see the lines as they come, then the result under Last stage check', async () => {
    await page.goto(lab.consoleUrl);
    await expect.poll(() => page.textContent('#conn')).toBe('live');
    expect(await page.textContent('.check-control .note')).toContain(
      'clears the four systems before every alert it sends',
    );
    const options = await page.locator('#check-stage option').allTextContents();
    expect(options).toEqual([...STAGE_NAMES, 'all']);
    expect(await page.textContent('#check')).toBe('');

    await page.selectOption('#check-stage', 'validate');
    await page.click('#check-run');
    await expect
      .poll(() => page.textContent('#check-status'), { timeout: 10_000 })
      .toMatch(/^Checking everything up to validate \(started/);
    expect(await page.isDisabled('#check-run')).toBe(true);
    // A second request while it runs (the button is disabled; the API says why).
    const token = await page.getAttribute('meta[name="console-token"]', 'content');
    const second = await page.evaluate(async (token) => {
      const res = await fetch('/api/check', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-console-token': String(token) },
        body: JSON.stringify({ stage: 'webhook' }),
      });
      return { status: res.status, body: await res.text() };
    }, token);
    expect(second.status).toBe(409);
    expect(second.body).toContain('is running already');
    // Progress: the checker's own lines appear while it still runs, not only once it finished.
    await expect
      .poll(() => page.locator('#check-lines li').count(), { timeout: 60_000, interval: 100 })
      .toBeGreaterThan(0);
    expect(await page.textContent('#check-status')).toMatch(/^Checking everything up to validate/);

    await expect
      .poll(() => page.textContent('#check-status'), { timeout: 120_000, interval: 500 })
      .toMatch(/^Check of everything up to validate finished \d\d:\d\d:\d\d: passed\.$/);
    const lines = await page.locator('#check-lines li').allTextContents();
    expect(lines.some((l) => /^PASS\s+webhook\s/.test(l))).toBe(true);
    expect(lines.some((l) => /^PASS\s+validate\s/.test(l))).toBe(true);
    await expect
      .poll(() => page.textContent('#check h3'), { timeout: 10_000 })
      .toBe('Last stage check: pass');
    const panel = await page.textContent('#check');
    expect(panel).toContain('up to validate');
    expect(panel).toMatch(/pass webhook \(\d+ pass, 0 fail/);
    expect(panel).toMatch(/pass validate \(\d+ pass, 0 fail/);
    expect(await page.isDisabled('#check-run')).toBe(false);
    if (SHOTS) await page.locator('#check-run').scrollIntoViewIfNeeded();
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'console-check.png'), fullPage: true });
  }, 180_000);
});
