/**
 * The stage briefs and Add a starter in a real browser: the console's test set-up with n8n's public
 * workflow API stood in (test/n8n/workflow-store.ts, N8N_URL). Choosing a stage shows what it must do in
 * the checker's words; Add a starter adds the starter for it and shows its line; the first stage and
 * `all` have none. SCREENSHOTS=<dir> also writes console-starter.png for the docs.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkWords } from '../../app/stages/briefs.js';
import { APPROVAL_THRESHOLD } from '../../app/workflow/constants.js';
import { type ConsoleLab, startConsoleLab } from '../console/harness.js';
import { type ChromiumSession, openChromium } from '../helpers/chromium.js';
import { STORE_KEY, workflowStore } from '../n8n/workflow-store.js';

const SHOTS = process.env.SCREENSHOTS;

let n8n: Awaited<ReturnType<typeof workflowStore>>;
let lab: ConsoleLab;
let browser: ChromiumSession;
let page: Page;

beforeAll(async () => {
  n8n = await workflowStore();
  lab = await startConsoleLab({
    N8N_URL: n8n.url,
    N8N_API_KEY: STORE_KEY,
  });
  browser = await openChromium();
  page = browser.page;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await lab?.stop();
});

describe('the stage brief and Add a starter in chromium', () => {
  it('choose a stage: its brief; Add a starter: the starter’s line, and the workflow in n8n', async () => {
    await page.goto(lab.consoleUrl);
    await expect.poll(() => page.textContent('#conn')).toBe('live');
    // `all` is chosen first: no brief of its own, no starter.
    await expect.poll(() => page.textContent('#stage-brief')).toContain('every stage in turn');
    expect(await page.isDisabled('#starter-add')).toBe(true);

    await page.selectOption('#check-stage', 'enrich');
    expect(await page.textContent('#stage-brief h3')).toBe('What Enrich must do');
    const brief = checkWords(APPROVAL_THRESHOLD).briefs.find((b) => b.stage === 'enrich');
    const items = await page.locator('#stage-brief ul ul li').allTextContents();
    expect(items).toEqual(brief?.expectations.map((x) => x.text));
    const text = (await page.textContent('#stage-brief')) ?? '';
    expect(text).toContain(`the checker sends: ${brief?.expectations[0]?.when}`);
    expect(text).not.toMatch(/\{\{|\$json|\$\(/);
    expect(await page.textContent('#check-lines')).toBe('');

    expect(await page.isDisabled('#starter-add')).toBe(false);
    await page.click('#starter-add');
    await expect
      .poll(() => page.textContent('#starter-status'), { timeout: 15_000 })
      .toBe('Starter for enrich added:');
    const [w] = [...n8n.workflows.values()];
    expect(await page.locator('#starter-lines li').allTextContents()).toEqual([
      `added "Starter: up to Validate" (id ${w?.id}), unpublished: unpublish your own workflow, then publish this one to go on from a working Validate`,
    ]);
    expect(w).toMatchObject({ name: 'Starter: up to Validate', active: false });
    expect(await page.textContent('#message')).toMatch(
      /^Add a starter for enrich: added "Starter: up to Validate"/,
    );
    if (SHOTS) await page.locator('#starter-add').scrollIntoViewIfNeeded();
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'console-starter.png'), fullPage: true });

    await page.selectOption('#check-stage', 'webhook');
    expect(await page.textContent('#stage-brief h3')).toBe('What Webhook must do');
    expect(await page.isDisabled('#starter-add')).toBe(true);
    expect(await page.getAttribute('#starter-add', 'title')).toMatch(/first stage/);
  }, 90_000);
});
