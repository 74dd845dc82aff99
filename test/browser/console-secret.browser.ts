/**
 * The console behind CONSOLE_SECRET in chromium: the sign-in link (`/login#secret=…`) opens the live
 * console at once, the fragment gone from the address bar and the tab's history before the form is
 * posted, and the secret in no request but the login form's body; a wrong link ends on the form with its
 * error; a second console with another secret does not open with the first one's link, and each keeps its
 * own session (a cookie name per lab and port). By hand: the page
 * asks for the secret, refuses a wrong one, opens with the right one; the session cookie is out of the
 * page's reach (HttpOnly); the header's link opens the mock API's field reference. SCREENSHOTS=<dir>
 * also writes console-login.png and console-fields.png.
 */
import { join } from 'node:path';
import type { CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleLab, startConsoleLab } from '../console/harness.js';
import { type ChromiumSession, openChromium } from '../helpers/chromium.js';

const SHOTS = process.env.SCREENSHOTS;
const SECRET = 'lab-secret-for-the-browser-test';
const OTHER_SECRET = 'another-labs-secret-0123';

let lab: ConsoleLab;
/** A second console, another lab's, with its own secret. */
let other: ConsoleLab;
let browser: ChromiumSession;
let page: Page;

beforeAll(async () => {
  // One after the other: on a busy machine two console processes starting at once can miss the
  // harness's start-up limit.
  lab = await startConsoleLab({
    CONSOLE_SECRET: SECRET,
    CONSOLE_LAB: 'alice',
    CONSOLE_PUBLISHED_PORT: '8089',
  });
  other = await startConsoleLab({
    CONSOLE_SECRET: OTHER_SECRET,
    CONSOLE_LAB: 'bob',
    CONSOLE_PUBLISHED_PORT: '8090',
  });
  browser = await openChromium();
  page = browser.page;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([lab?.stop(), other?.stop()]);
});

/** The link the roster hands out. */
const signInLink = (consoleUrl: string, secret: string) =>
  `${consoleUrl}/login#secret=${encodeURIComponent(secret)}`;

interface Sent {
  method: string;
  url: string;
  body: string | null;
}

/** A fresh chromium (its own cookies and history) for one test, recording every request it makes. */
async function freshBrowser(run: (b: ChromiumSession, sent: Sent[]) => Promise<void>): Promise<void> {
  const b = await openChromium();
  // A step that cannot happen fails in seconds, not at the test's time limit.
  b.context.setDefaultTimeout(10_000);
  const sent: Sent[] = [];
  b.context.on('request', (r) => sent.push({ method: r.method(), url: r.url(), body: r.postData() }));
  try {
    await run(b, sent);
  } finally {
    await b.close();
  }
}

/** Every entry of the tab's history (what Back and Forward go through), oldest first, from chromium. */
async function tabHistory(b: ChromiumSession, cdp?: CDPSession): Promise<string[]> {
  const session = cdp ?? (await b.context.newCDPSession(b.page));
  const { entries } = await session.send('Page.getNavigationHistory');
  if (cdp === undefined) await session.detach();
  return entries.map((entry) => entry.url);
}

describe('the sign-in link, in chromium', () => {
  it('signs in once and lands on the live console; the fragment leaves the address bar and the history before the form is posted', async () => {
    await freshBrowser(async (b, sent) => {
      const { page: tab, context } = b;
      // Where the tab is, and its history, when the form is posted: what stays if the sign-in stalls.
      const postedFrom: string[][] = [];
      const cdp = await context.newCDPSession(tab);
      await tab.route(`${lab.consoleUrl}/login`, async (route) => {
        if (route.request().method() === 'POST') postedFrom.push([tab.url(), ...(await tabHistory(b, cdp))]);
        await route.continue();
      });
      await tab.goto(signInLink(lab.consoleUrl, SECRET));
      await expect.poll(() => new URL(tab.url()).pathname).toBe('/');
      await expect.poll(() => tab.textContent('#conn')).toBe('live');
      const login = `${lab.consoleUrl}/login`;
      expect(postedFrom).toEqual([[login, 'about:blank', login]]);
      expect(await tab.evaluate('location.href')).toBe(`${lab.consoleUrl}/`);
      const [cookie] = await context.cookies(lab.consoleUrl);
      expect(cookie).toMatchObject({ name: 'soar_console_alice_8089', httpOnly: true });

      // Not in any URL the browser asked for (a fragment is never sent), only in the form's body, once.
      const carrying = sent.filter((r) => `${r.url} ${r.body ?? ''}`.includes(SECRET));
      expect(carrying.map((r) => [r.method, r.url, r.body])).toEqual([
        ['POST', `${lab.consoleUrl}/login`, `secret=${encodeURIComponent(SECRET).replace(/%20/g, '+')}`],
      ]);
      expect(lab.console.stdout() + lab.console.stderr()).not.toContain(SECRET);

      // The tab's history: the blank tab, then the console (chromium lets the sign-in replace the login).
      expect(await tabHistory(b)).toEqual(['about:blank', `${lab.consoleUrl}/`]);
    });
  });

  it('a wrong secret in the link ends on the form with its error, with no session', async () => {
    const wrong = 'not-this-labs-secret-at-all';
    await freshBrowser(async (b) => {
      const { page: tab, context } = b;
      await tab.goto(signInLink(lab.consoleUrl, wrong));
      await expect.poll(() => tab.textContent('.login-error')).toMatch(/not this lab's secret/);
      expect(tab.url()).toBe(`${lab.consoleUrl}/login`);
      expect(await tab.locator('#approvals').count()).toBe(0);
      expect(await context.cookies(lab.consoleUrl)).toEqual([]);
      expect(await tabHistory(b)).toEqual(['about:blank', `${lab.consoleUrl}/login`]);
    });
  });

  it("another lab's console does not open with this lab's link, nor with this lab's session", async () => {
    await freshBrowser(async (b) => {
      const { page: tab, context } = b;
      await tab.goto(signInLink(lab.consoleUrl, SECRET));
      await expect.poll(() => tab.textContent('#conn')).toBe('live');

      // Same host, another port: the browser sends this lab's cookie there too; that console has no
      // such session, and this lab's secret is not its secret.
      await tab.goto(signInLink(other.consoleUrl, SECRET));
      await expect.poll(() => tab.textContent('.login-error')).toMatch(/not this lab's secret/);
      expect(tab.url()).toBe(`${other.consoleUrl}/login`);
      expect((await context.cookies(other.consoleUrl)).map((c) => c.name)).toEqual([
        'soar_console_alice_8089',
      ]);
      await tab.goto(other.consoleUrl);
      expect(tab.url()).toBe(`${other.consoleUrl}/login`);
      expect(await tab.locator('#approvals').count()).toBe(0);
      expect((await context.request.get(`${other.consoleUrl}/api/state`)).status()).toBe(401);

      // Its own link opens it, opened in this tab, on its login page: only the fragment changes.
      await tab.goto(signInLink(other.consoleUrl, OTHER_SECRET));
      await expect.poll(() => tab.url(), { timeout: 5000 }).toBe(`${other.consoleUrl}/`);
      await expect.poll(() => tab.textContent('#conn')).toBe('live');
      expect(await tabHistory(b)).not.toContain(signInLink(other.consoleUrl, OTHER_SECRET));
      // Cookies are per host, not per port, but each lab's has its own name: both sessions stay.
      expect((await context.cookies(lab.consoleUrl)).map((c) => c.name).sort()).toEqual([
        'soar_console_alice_8089',
        'soar_console_bob_8090',
      ]);
      expect((await context.request.get(`${lab.consoleUrl}/api/state`)).status()).toBe(200);
    });
  });
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
    expect(cookie).toMatchObject({ name: 'soar_console_alice_8089', httpOnly: true, sameSite: 'Strict' });

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
