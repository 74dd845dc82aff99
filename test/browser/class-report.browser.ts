/**
 * The class report in chromium (make test-console): the page the CLI writes, opened from a file with
 * JavaScript switched off (it needs none) and the network refused (it loads nothing), shows the grid: a
 * lab that is down, one never checked, a failed stage with its hint, stages not checked, and each
 * trainee's last run with how many tries each stage took (nothing for a lab without runs, or with a runs
 * file that is not the tutor's).
 * SCREENSHOTS=<dir> also writes class-report.png.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAGE_NAMES } from '../../app/stages/stages.js';
import { BOB_RUN_URL, CLASS, ENRICH_HINT } from '../classroom/class-fixture.js';
import { launchChromium } from '../helpers/chromium.js';
import { spawnNode } from '../helpers/service-process.js';

const SHOTS = process.env.SCREENSHOTS;

let dir: string;
let browser: Browser;
let page: Page;
const requests: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'soar-class-'));
  const proc = spawnNode('app/classroom/report-cli.ts', ['--format', 'html']);
  proc.child.stdin.end(JSON.stringify(CLASS));
  expect((await proc.exited).code).toBe(0);
  writeFileSync(join(dir, 'class.html'), proc.stdout());
  browser = await launchChromium();
  const context = await browser.newContext({
    javaScriptEnabled: false,
    viewport: { width: 1500, height: 760 },
  });
  // Anything but the file itself would be an external asset: refuse it, and count it.
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    requests.push(url);
    return route.abort();
  });
  page = await context.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const cellText = (lab: string, stage: string) =>
  page.textContent(`tr[data-lab="${lab}"] td[data-stage="${stage}"] .verdict`);

describe('the class report in chromium', () => {
  it('shows trainee × stage with PASS / FAIL / UNJUDGED / not checked, the hint, when, first passes and lab states', async () => {
    await page.goto(`file://${join(dir, 'class.html')}`);
    expect(await page.title()).toBe('Class report · SOAR lab');
    expect(await page.locator('tbody tr').count()).toBe(CLASS.labs.length);
    expect(await page.locator('thead th.stage').allTextContents()).toEqual([...STAGE_NAMES]);

    expect(await cellText('alice', 'webhook')).toBe('UNJUDGED');
    expect(await cellText('alice', 'rollback')).toBe('PASS');
    expect(await cellText('bob', 'enrich')).toBe('FAIL');
    expect(await page.getAttribute('tr[data-lab="bob"] td[data-stage="enrich"]', 'title')).toBe(
      `enrich: ${ENRICH_HINT}`,
    );
    // A stage that passed shows when it first did (here: the last check, there being no history).
    expect(await page.textContent('tr[data-lab="bob"] td[data-stage="validate"] .first')).toBe('✓ 09:41');
    expect(await page.locator('tr[data-lab="bob"] td[data-stage="enrich"] .first').count()).toBe(0);
    expect(await cellText('bob', 'approve')).toBe('–');
    expect(await page.textContent('tr[data-lab="bob"] td.next')).toBe(`enrich: ${ENRICH_HINT}`);
    expect(await page.textContent('tr[data-lab="bob"] td.when')).toBe('2026-11-24 09:41 UTCup to decide');
    expect(await page.textContent('tr[data-lab="carol"] td.next')).toMatch(
      /^stopped: nothing listens on POST \/webhook\/suspicious-login/,
    );

    // A lab that is stopped: marked, its last check still shown. A lab never checked: said so.
    expect(await page.textContent('tr[data-lab="dave"] .lab-state')).toBe('stopped');
    expect(await page.textContent('tr[data-lab="carol"] .lab-state')).toBe('broken');
    expect(await cellText('dave', 'validate')).toBe('PASS');
    expect(await page.textContent('tr[data-lab="erin"] td.when')).toBe('never checked');
    expect(await page.locator('tr[data-lab="erin"] td.not_checked').count()).toBe(STAGE_NAMES.length);
    // A trainee-chosen name is text, not markup.
    expect(await page.textContent('tr[data-lab="frank <script>"] th.trainee')).toMatch(
      /^frank <script>absent/,
    );

    // Colours come from the inline style: a FAIL cell is red on pink, a PASS green.
    const colour = (lab: string, stage: string) =>
      page.evaluate(
        `getComputedStyle(document.querySelector('tr[data-lab="${lab}"] td[data-stage="${stage}"]')).color`,
      );
    expect(await colour('bob', 'enrich')).toBe('rgb(180, 35, 44)');
    expect(await colour('bob', 'webhook')).toBe('rgb(29, 122, 70)');

    // The last run beside the last check, and the tries: bob's runs.json; erin has none, carol's is broken.
    expect(await page.locator('thead th').nth(2).textContent()).toBe('last run');
    const run = 'tr[data-lab="bob"] td.run';
    expect(await page.textContent(run)).toBe(
      'unmet at enrichreached decide09:52 · the run5 runs · tries: enrich 3, decide 1',
    );
    expect(await page.getAttribute(`${run} .run-at`, 'title')).toBe('started 2026-11-24 09:52 UTC');
    expect(await page.getAttribute(`${run} a`, 'href')).toBe(BOB_RUN_URL);
    expect(await page.evaluate(`getComputedStyle(document.querySelector('${run} .run-verdict')).color`)).toBe(
      'rgb(180, 35, 44)',
    );
    expect(await page.textContent('tr[data-lab="erin"] td.run')).toBe('');
    expect(await page.textContent('tr[data-lab="carol"] td.run')).toBe('');
    expect(await page.textContent('.totals')).toContain('5runs explained');
    expect(requests).toEqual([]);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'class-report.png'), fullPage: true });
  });
});
