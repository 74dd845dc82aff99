/**
 * The class board in chromium (make test-console): a class of two labs (two fake reports folders and a
 * states file) served over real HTTP. A check lands in one lab and the open page shows it within 5 s
 * without a reload; the states file says stopped and the page says stopped; the tutor's runs.json lands
 * and the trainee's last run shows beside their last check, linked. Controls: the same page with
 * JavaScript off never shows the check (the liveness is the page's script), and a states file that cannot
 * be read shows every lab's state unknown. With a secret, the sign-in link signs in and leaves no secret
 * in the address bar. SCREENSHOTS=<dir> also writes class-board.png.
 */
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BoardSessions } from '../../app/classroom/board-guard.js';
import {
  type ClassOnDisk,
  classOnDisk,
  landCheck,
  landRuns,
  type Served,
  serveBoard,
  writeRaw,
  writeStates,
} from '../classroom/board-fixture.js';
import { checkReport, ENRICH_HINT, runsFile, tutorRun } from '../classroom/class-fixture.js';
import { launchChromium } from '../helpers/chromium.js';

const SHOTS = process.env.SCREENSHOTS;
const SECRET = 'a1b2c3d4e5f6a7b8c9d0e1f2';
const LIVE_WITHIN_MS = 5_000;

let on: ClassOnDisk;
let board: Served;
let guarded: Served;
let browser: Browser;
let live: BrowserContext;
let still: BrowserContext;

const RUNNING = [
  {
    name: 'alice',
    state: 'running',
    editor_url: 'http://127.0.0.1:5679',
    console_url: 'http://127.0.0.1:8089',
  },
  {
    name: 'bob',
    state: 'running',
    editor_url: 'http://127.0.0.1:5680',
    console_url: 'http://127.0.0.1:8090',
  },
] as const;

beforeAll(async () => {
  on = classOnDisk(['alice', 'bob']);
  await writeStates(on, RUNNING);
  await landCheck(on, 'alice', checkReport('enrich', { finishedAt: new Date().toISOString() }));
  board = await serveBoard(on);
  guarded = await serveBoard(on, { sessions: new BoardSessions(SECRET) });
  browser = await launchChromium();
  live = await browser.newContext({ viewport: { width: 1500, height: 700 } });
  still = await browser.newContext({ javaScriptEnabled: false });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await board?.close();
  await guarded?.close();
  on?.remove();
});

const verdict = (page: Page, lab: string, stage: string) =>
  page.textContent(`tr[data-lab="${lab}"] td[data-stage="${stage}"] .verdict`);

/** Waits (at most 5 s, no reload) until the element's text is `text`; throws past that. (A locator: the
 * page's CSP forbids the string eval a waitForFunction would need.) */
const showsWithin = (page: Page, selector: string, text: string) =>
  page
    .locator(selector)
    .filter({ hasText: new RegExp(`^${text}$`) })
    .waitFor({ timeout: LIVE_WITHIN_MS });

/** Opens the board and waits until its script has fetched once; counts the page's navigations. */
async function openBoard(context: BrowserContext) {
  const page = await context.newPage();
  let navigations = 0;
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) navigations++;
  });
  await page.goto(board.url);
  return { page, navigations: () => navigations };
}

describe('the class board in chromium', () => {
  it('a check landing in one lab shows within 5 s, without a reload; with JavaScript off it does not', async () => {
    const { page, navigations } = await openBoard(live);
    const frozen = (await openBoard(still)).page;
    await page.waitForSelector('#live[data-state=live]');
    expect(await page.title()).toBe('Class board · SOAR lab');
    expect(await verdict(page, 'alice', 'enrich')).toBe('PASS');
    expect(await page.textContent('tr[data-lab="alice"] td[data-stage="enrich"] .first')).toMatch(
      /^✓ \d\d:\d\d$/,
    );
    expect(await page.textContent('tr[data-lab="bob"] td.when')).toBe('never checked');
    await page.evaluate('window.kept = "the same document"');

    const landed = performance.now();
    await landCheck(on, 'bob', checkReport('decide', { failing: 'enrich', hint: ENRICH_HINT }));
    await showsWithin(page, 'tr[data-lab="bob"] td[data-stage="enrich"] .verdict', 'FAIL');
    const shownAfterMs = performance.now() - landed;
    expect(shownAfterMs).toBeLessThan(LIVE_WITHIN_MS);
    expect(await page.textContent('tr[data-lab="bob"] td.next')).toBe(`enrich: ${ENRICH_HINT}`);
    expect(await page.textContent('tr[data-lab="bob"] td.when')).toMatch(/up to decide1 check$/);
    // No reload: the same document, one navigation (the first).
    expect(await page.evaluate('window.kept')).toBe('the same document');
    expect(navigations()).toBe(1);

    // The control: the same page without its script still shows what it was served.
    await new Promise((resolve) => setTimeout(resolve, LIVE_WITHIN_MS - shownAfterMs));
    expect(await frozen.textContent('tr[data-lab="bob"] td.when')).toBe('never checked');
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'class-board.png'), fullPage: true });
    await frozen.close();
    await page.close();
  }, 30_000);

  it('a run landing in runs.json shows beside the last check within 5 s: verdict, stage, when, link, tries', async () => {
    const { page } = await openBoard(live);
    await page.waitForSelector('#live[data-state=live]');
    expect(await page.textContent('tr[data-lab="bob"] td.run')).toBe('');

    const url = 'http://127.0.0.1:5680/workflow/wf1/executions/77/node-enrich';
    const run = tutorRun('77', new Date().toISOString(), {
      url,
      verdict: 'unmet',
      unmet_stage: 'enrich',
      reached: 'case-lookup',
    });
    await landRuns(on, 'bob', runsFile([run], { enrich: 2 }, 3));
    const cell = 'tr[data-lab="bob"] td.run';
    await showsWithin(page, `${cell} .reached`, 'case-lookup');
    expect(await page.textContent(`${cell} .run-verdict`)).toBe('unmet at enrich');
    expect(await page.textContent(`${cell} .run-at`)).toMatch(/^\d\d:\d\d$/);
    expect(await page.getAttribute(`${cell} a`, 'href')).toBe(url);
    expect(await page.textContent(`${cell} .runs`)).toBe('3 runs · tries: enrich 2');
    // alice has no runs file: nothing there, her check as before.
    expect(await page.textContent('tr[data-lab="alice"] td.run')).toBe('');
    expect(await verdict(page, 'alice', 'enrich')).toBe('PASS');

    // A runs file that is not the tutor's: the run goes, the row stays.
    await writeRaw(on, 'bob', 'runs.json', '{"kind":"tutor-ru');
    await page.locator(`${cell} .reached`).waitFor({ state: 'detached', timeout: LIVE_WITHIN_MS });
    expect(await page.textContent('tr[data-lab="bob"] th.trainee')).toMatch(/^bob/);
    await page.close();
  }, 30_000);

  it('the states file says stopped: the board says stopped; a states file it cannot read: unknown', async () => {
    const { page } = await openBoard(live);
    await page.waitForSelector('#live[data-state=live]');
    expect(await page.textContent('tr[data-lab="alice"] .lab-state')).toBe('running');

    await writeStates(on, [{ ...RUNNING[0], state: 'stopped' }, RUNNING[1]]);
    const state = '[data-lab="alice"] .lab-state';
    await showsWithin(page, state, 'stopped');
    expect(await page.getAttribute('tr[data-lab="alice"]', 'data-state')).toBe('stopped');
    expect(await page.textContent('tr[data-lab="bob"] .lab-state')).toBe('running');

    await writeRaw({ ...on, labs: on.root }, 'state', 'states.json', '{"at":');
    await showsWithin(page, state, 'unknown');
    expect(await page.textContent('tr[data-lab="alice"] .state-detail')).toBe(
      'the lab states file is unreadable',
    );
    await writeStates(on, RUNNING);
    await page.close();
  }, 30_000);

  it('with a secret: the sign-in link signs in and leaves no secret in the address bar; a wrong one does not', async () => {
    const context = await browser.newContext();
    const first = await context.newPage();
    await first.goto(`${guarded.url}/`);
    expect(new URL(first.url()).pathname).toBe('/login');
    await first.close();

    // Each link in a tab of its own, as a trainer opens one (the same URL but its fragment would not load).
    const wrong = await context.newPage();
    await wrong.goto(`${guarded.url}/login#secret=wrong-secret-0000`);
    await wrong.waitForSelector('.login-error');
    expect(await wrong.textContent('.login-error')).toBe("That is not the board's secret.");
    await wrong.close();

    const page = await context.newPage();
    await page.goto(`${guarded.url}/login#secret=${SECRET}`);
    await page.waitForSelector('#live[data-state=live]');
    expect(page.url()).toBe(`${guarded.url}/`);
    expect(await page.textContent('tr[data-lab="alice"] th.trainee')).toMatch(/^alice/);
    await context.close();
  }, 30_000);
});
