/**
 * The Last stage check panel's run pointers in a real browser: a FAIL carries the run it is about (the
 * stand-in checker, test/console/stand-in-checker.mjs, writes it as the real checker does), and the panel
 * shows its node, a link that opens that run in a new tab, and why; every part of it n8n's text, drawn as
 * text. A FAIL without a run shows nothing more; an address that is no web address is never a link. The
 * Check control's two scopes (everything up to a stage, or the stage on its own), said in its status line
 * and under the result's heading. The run's address is served by a small server here, standing in for n8n's
 * editor, so the new tab shows what it opened.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleLab, startConsoleLab } from '../console/harness.js';
import { type ChromiumSession, openChromium } from '../helpers/chromium.js';
import { standIn } from '../n8n/stand-in.js';

let editorUrl: string;
let lab: ConsoleLab;
let browser: ChromiumSession;
let page: Page;

beforeAll(async () => {
  // n8n's editor, as far as this test needs it: an execution's page names the execution.
  const editor = await standIn((call, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>n8n</title><p id="opened">${call.url.replace(/[<>&"]/g, '')}</p>`);
  }, 'file');
  editorUrl = editor.url;
  lab = await startConsoleLab({ CONSOLE_CHECKER: 'test/console/stand-in-checker.mjs', N8N_URL: editorUrl });
  browser = await openChromium();
  page = browser.page;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await lab?.stop();
});

async function check(stage: string, scope: 'up-to' | 'only'): Promise<void> {
  await page.selectOption('#check-stage', stage);
  await page.check(`input[name="check-scope"][value="${scope}"]`);
  await page.click('#check-run');
  const scoped = scope === 'only' ? `${stage} on its own` : `everything up to ${stage}`;
  await expect
    .poll(() => page.textContent('#check-status'), { timeout: 15_000, interval: 100 })
    .toContain(`Check of ${scoped} finished`);
}

describe('the run a failure is about, in chromium', () => {
  it('a FAIL shows its node, a link that opens its run in a new tab, and why, all as text', async () => {
    await page.goto(lab.consoleUrl);
    await expect.poll(() => page.textContent('#conn')).toBe('live');
    await check('validate', 'up-to');
    expect(await page.textContent('#check-status')).toMatch(
      /^Check of everything up to validate finished \d\d:\d\d:\d\d: did not pass \(exit 1\)\.$/,
    );
    await expect.poll(() => page.textContent('#check h3')).toBe('Last stage check: fail');
    expect(await page.textContent('#check .meta')).toContain('everything up to validate');

    const hint = page.locator('#check li.hint.fail');
    expect(await hint.count()).toBe(1);
    // n8n's words are text: the node's markup is shown, not run; no element came out of it.
    expect(await hint.locator('.run .node').textContent()).toBe(
      '<img src=x onerror="document.title=1">Record',
    );
    expect(await hint.locator('.why').textContent()).toBe(
      'Record errored: <b>the case system refused</b> & gave up',
    );
    expect(await page.locator('#check img, #check li.hint .why b').count()).toBe(0);
    expect(await page.title()).toBe('SOAR lab console');

    const link = hint.locator('a.run-link');
    const url = `${editorUrl}/workflow/wf-7/executions/42`;
    expect(await link.getAttribute('href')).toBe(url);
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toBe('noopener');
    expect(await link.textContent()).toBe('open run 42 in n8n');
    expect(await hint.locator('.run').textContent()).toBe(
      'at node <img src=x onerror="document.title=1">Record · open run 42 in n8n (error)',
    );
    // A click opens the run in a new tab, the console staying where it is.
    const [opened] = await Promise.all([browser.context.waitForEvent('page'), link.click()]);
    await opened.waitForLoadState();
    expect(opened.url()).toBe(url);
    expect(await opened.textContent('#opened')).toBe('/workflow/wf-7/executions/42');
    // noopener: the new tab cannot reach back to the console.
    expect(await opened.evaluate('window.opener === null')).toBe(true);
    await opened.close();
    expect(page.url()).toBe(`${lab.consoleUrl}/`);
  });

  it('a FAIL without a run shows its hint as before; an address that is no web address is no link', async () => {
    await check('case-lookup', 'up-to');
    await expect.poll(() => page.textContent('#check .meta')).toContain('everything up to case-lookup');
    const hint = page.locator('#check li.hint');
    expect(await hint.count()).toBe(1);
    expect(await hint.textContent()).toBe('case-lookup: the stand-in expectation → the stand-in hint');
    expect(await hint.locator('.run, .why, a').count()).toBe(0);

    await check('block', 'up-to');
    await expect.poll(() => page.textContent('#check .meta')).toContain('everything up to block');
    expect(await page.locator('#check a').count()).toBe(0);
    expect(await page.textContent('#check li.hint .run')).toBe(
      'at node Block · run: javascript:document.title=2',
    );
  });

  it('checks a stage on its own when asked, and says so; all has no such choice', async () => {
    await check('enrich', 'only');
    expect(await page.textContent('#check-status')).toMatch(
      /^Check of enrich on its own finished \d\d:\d\d:\d\d: passed\.$/,
    );
    await expect.poll(() => page.textContent('#check .meta')).toContain('enrich on its own');
    expect(await page.locator('#check .verdict-pass').allTextContents()).toEqual([
      'pass enrich (1 pass, 0 fail)',
    ]);
    // webhook is the first stage: on its own and everything up to it are one check, said the usual way.
    await check('webhook', 'up-to');
    await expect.poll(() => page.textContent('#check .meta')).toContain('everything up to webhook');
    await page.selectOption('#check-stage', 'all');
    expect(await page.isDisabled('input[name="check-scope"][value="only"]')).toBe(true);
    expect(await page.isChecked('input[name="check-scope"][value="up-to"]')).toBe(true);
  });
});
