/**
 * What the editor drivers share: the action being done (for the one line of a failure), waiting for a quiet
 * page, screenshots, and the canvas of n8n 2.41.1 (its nodes, zoom, a paste from the clipboard).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page, Request } from 'playwright-core';

export const VIEWPORT = { width: 1280, height: 800 };
export const ACTION_MS = 20_000;

/** What the driver is doing, for the one line of a failure. */
let step = 'starting Chromium';
export function doing(what: string): void {
  step = what;
}
export function currentStep(): string {
  return step;
}

export function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/**
 * Waits until the page is quiet: no fetch/XHR of the editor in flight and the visible text unchanged for
 * 600 ms (n8n renders skeletons, then the page). Bounded: gives up quietly after `ms`.
 */
export async function settle(page: Page, inFlight: ReadonlySet<Request>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  let last = '';
  let quiet = 0;
  while (Date.now() < end) {
    await page.waitForTimeout(200);
    const text = await page
      .locator('body')
      .innerText()
      .catch(() => '');
    quiet = text === last && inFlight.size === 0 ? quiet + 1 : 0;
    last = text;
    if (quiet >= 3) return;
  }
  if (process.env.TRACE) {
    process.stderr.write(
      `settle: gave up (${[...inFlight].map((r) => r.url()).join(' ') || 'text changing'})\n`,
    );
  }
}

/** A region of the page, in CSS pixels. */
export interface Clip {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The page (or `clip` of it) as a trainee sees it: no popover over it, no hover toolbar. */
export async function grab(page: Page, clip?: Clip): Promise<Buffer> {
  // After the first publish 2.41.1 opens the popover (a dialog) "Production Checklist" over the page; a
  // trainee closes it (Escape, or its first button, the cross).
  const checklist = page
    .getByRole('dialog')
    .filter({ hasText: 'Production Checklist' })
    .filter({ visible: true });
  if ((await checklist.count()) > 0) {
    await page.keyboard.press('Escape');
    await page.waitForTimeout(500);
    if ((await checklist.count()) > 0) await checklist.getByRole('button').first().click();
    await checklist.waitFor({ state: 'hidden' });
  }
  await page.mouse.move(VIEWPORT.width - 2, VIEWPORT.height / 2); // no hover toolbar in the shot
  await page.waitForTimeout(300);
  return page.screenshot(clip ? { clip } : {});
}

/** A screenshot into `dir` (none without one): the whole page, or `clip` of it. */
export async function shoot(page: Page, dir: string | undefined, file: string, clip?: Clip): Promise<void> {
  if (!dir) return;
  writeFileSync(join(dir, file), await grab(page, clip));
  say(`wrote ${join(dir, file)}`);
}

/** The smallest region holding every box, `margin` pixels around it, within the viewport. */
export function around(boxes: readonly Clip[], margin: number): Clip {
  if (boxes.length === 0) throw new Error('nothing to frame');
  const x = Math.max(0, Math.min(...boxes.map((b) => b.x)) - margin);
  const y = Math.max(0, Math.min(...boxes.map((b) => b.y)) - margin);
  const right = Math.min(VIEWPORT.width, Math.max(...boxes.map((b) => b.x + b.width)) + margin);
  const bottom = Math.min(VIEWPORT.height, Math.max(...boxes.map((b) => b.y + b.height)) + margin);
  return { x, y, width: Math.round(right - x), height: Math.round(bottom - y) };
}

/** A node on the canvas: 2.41.1 renders each as `data-test-id="canvas-node"` with `data-node-name`. */
export function canvasNode(page: Page, name: string): Locator {
  return page.locator(`[data-test-id="canvas-node"][data-node-name="${name.replace(/"/g, '\\"')}"]`);
}

/**
 * Where a canvas node is drawn, with its name below it and its output labels beside it (2.41.1 draws them
 * outside the node's own box).
 */
export async function nodeExtent(node: Locator): Promise<Clip> {
  return node.evaluate((element) => {
    // The page's own DOM (this runs in Chromium); the project's types have no DOM library.
    interface Drawn {
      getBoundingClientRect(): { left: number; top: number; right: number; bottom: number } & Size;
      querySelectorAll(selector: string): ArrayLike<Drawn>;
    }
    interface Size {
      width: number;
      height: number;
    }
    const root = element as unknown as Drawn;
    const rects = [root, ...Array.from(root.querySelectorAll('*'))]
      .map((e) => e.getBoundingClientRect())
      .filter((r) => r.width > 0 && r.height > 0);
    const x = Math.min(...rects.map((r) => r.left));
    const y = Math.min(...rects.map((r) => r.top));
    const right = Math.max(...rects.map((r) => r.right));
    const bottom = Math.max(...rects.map((r) => r.bottom));
    return { x, y, width: right - x, height: bottom - y };
  });
}

/**
 * Hides the minimap (bottom left): 2.41.1 shows it when the canvas moves and while the pointer is on it,
 * and hides it a second after the pointer leaves it.
 */
export async function minimapAway(page: Page): Promise<void> {
  const box = await page.locator('[data-test-id="canvas-minimap"]').boundingBox();
  if (box) await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.move(VIEWPORT.width - 2, VIEWPORT.height / 2);
  await page.waitForTimeout(2_000);
}

/** Every node on the canvas. */
export function canvasNodes(page: Page): Locator {
  return page.locator('[data-test-id="canvas-node"]');
}

/** Waits (bounded) until `locator` matches at least `n` elements. */
export async function countReaches(locator: Locator, n: number): Promise<void> {
  const end = Date.now() + ACTION_MS;
  while ((await locator.count()) < n) {
    if (Date.now() > end) throw new Error(`${await locator.count()} of ${n} nodes on the canvas after 20 s`);
    await locator.page().waitForTimeout(200);
  }
}

/** Ctrl+wheel over a node: zooms the canvas around it, as a trainee does with the mouse. */
export async function zoomAround(page: Page, node: Locator, steps: number): Promise<void> {
  for (let i = 0; i < steps; i += 1) {
    const box = await node.boundingBox();
    if (!box) return;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, -100);
    await page.keyboard.up('Control');
    await page.waitForTimeout(120);
  }
}

/**
 * A trainee copies an export to the clipboard, then presses Ctrl+V on the canvas; done when the canvas
 * shows exactly `count` nodes.
 */
export async function pasteOnto(
  page: Page,
  text: string,
  count: number,
  quiet: () => Promise<void>,
): Promise<void> {
  await page.evaluate(async (t) => {
    await (
      globalThis as unknown as { navigator: { clipboard: { writeText(t: string): Promise<void> } } }
    ).navigator.clipboard.writeText(t);
  }, text);
  await page.keyboard.press('ControlOrMeta+v');
  const nodes = canvasNodes(page);
  await countReaches(nodes, count);
  await quiet();
  if ((await nodes.count()) !== count)
    throw new Error(`paste: ${await nodes.count()} nodes, the file has ${count}`);
}

/**
 * A new workflow from the overview, as a trainee makes one: 2.41.1's "Create workflow" (a button) once a
 * workflow exists; done when its empty canvas says "Add first step…".
 */
export async function newWorkflow(page: Page, n8n: string, quiet: () => Promise<void>): Promise<void> {
  doing('creating a workflow');
  await page.goto(`${n8n}/home/workflows`);
  await quiet();
  await page
    .getByRole('button', { name: 'Create workflow', exact: true })
    .filter({ visible: true })
    .first()
    .click();
  await page.waitForURL(/\/workflow\//);
  await page.getByText(/^Add first step/).waitFor();
}

/**
 * Renames the open workflow: 2.41.1's header name is an inline edit (data-test-id workflow-name-input): its
 * preview text, clicked, turns into an input with the placeholder "Workflow name"; Enter keeps it.
 */
export async function renameWorkflow(page: Page, name: string): Promise<void> {
  doing('renaming the workflow');
  const title = page.locator('[data-test-id="workflow-name-input"]');
  await title.locator('[data-test-id="inline-edit-preview"]').click();
  await page.getByPlaceholder('Workflow name').fill(name);
  await page.keyboard.press('Enter');
  await title.getByText(name, { exact: true }).filter({ visible: true }).waitFor();
}
