/**
 * The console behind CONSOLE_SECRET in chromium: the page asks for the lab's secret first, a wrong one is
 * refused, the right one opens the live console; the session cookie is out of the page's reach
 * (HttpOnly); the header's link opens the mock API's field reference. SCREENSHOTS=<dir> also writes
 * console-login.png and console-fields.png.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type ConsoleLab, openChromium, startConsoleLab } from './harness.js';

const SHOTS = process.env.SCREENSHOTS;
const SECRET = 'lab-secret-for-the-browser-test';

let lab: ConsoleLab;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  lab = await startConsoleLab({ CONSOLE_SECRET: SECRET });
  browser = await openChromium();
  page = browser.page;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await lab?.stop();
});

describe('the console behind the lab secret, in chromium', () => {
  it('asks for the secret, refuses a wrong one, opens the live console with the right one', async () => {
    await page.goto(lab.consoleUrl);
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(await page.locator('#approvals').count()).toBe(0);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'console-login.png') });

    await page.fill('#secret', 'not the secret at all');
    await page.click('button[type=submit]');
    await expect.poll(() => page.textContent('.login-error')).toMatch(/not this lab's secret/);
    expect(page.url()).not.toContain('secret=');

    await page.fill('#secret', SECRET);
    await page.click('button[type=submit]');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/');
    await expect.poll(() => page.textContent('#conn')).toBe('live');
    expect(page.url()).not.toContain(SECRET);
    // HttpOnly: the page's script cannot read the session.
    expect(await page.evaluate('document.cookie')).toBe('');
    const [cookie] = await browser.context.cookies(lab.consoleUrl);
    expect(cookie).toMatchObject({ name: 'console_session', httpOnly: true, sameSite: 'Strict' });

    // The controls work through the session: the clock moves.
    await page.click('button.clock[data-minutes="5"]');
    await expect.poll(() => page.textContent('#message')).toMatch(/the service clock is now/);
  });

  it("the header links to the mock API's fields, readable in the browser", async () => {
    await page.click('a[href="/fields"]');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/fields');
    expect(await page.textContent('h1')).toBe('Mock API fields');
    const block = page.locator('#blockAddress');
    expect(await block.locator('h2').textContent()).toMatch(/POST\s+\/blocklist/);
    expect(await block.locator('table.fields td.mono').allTextContents()).toEqual(
      expect.arrayContaining(['ip', 'event_id', 'expires_minutes']),
    );
    if (SHOTS) {
      await page.setViewportSize({ width: 1280, height: 1100 });
      await page.locator('#blockAddress').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, 'console-fields.png') });
    }
    const doc = await page.goto(new URL('/openapi.json', lab.consoleUrl).toString());
    expect(doc?.status()).toBe(200);
    expect(await doc?.json()).toMatchObject({ openapi: expect.stringMatching(/^3\.1/) });
  });
});
