/**
 * The trainee guide's screenshots of n8n 2.41.1's own views, each framed so that what the guide points at
 * can be read: the canvas of a stage being built (a partial of the guide's workflow, every node in view at a
 * size whose names read), the Executions tab with one run zoomed to its first nodes (their names and the
 * item counts on their connections), and the Wait node's panel with every parameter in the picture. Each
 * says in one line what it framed, so the caller can hold it to that.
 */
import type { Locator, Page } from 'playwright-core';
import { webhookUrl } from '../../app/driver/webhook-path.js';
import {
  type Clip,
  canvasNode,
  doing,
  grab,
  minimapAway,
  newWorkflow,
  pasteOnto,
  renameWorkflow,
  say,
  shoot,
  VIEWPORT,
  zoomAround,
} from './editor-kit.js';

/** How wide (CSS pixels) a node is drawn when its name under it reads at a glance. */
const READABLE_NODE = 72;
/** A node of the guide's workflow, as the driver knows it from the file it pastes. */
export interface FileNode {
  name: string;
  type: string;
  parameters?: Record<string, unknown>;
}

/** The names of the canvas nodes under `within` drawn wholly inside `box`. */
async function namesInside(within: Locator, box: Clip): Promise<string[]> {
  const names: string[] = [];
  for (const node of await within.locator('[data-test-id="canvas-node"]').all()) {
    const b = await node.boundingBox();
    const inside =
      b !== null &&
      b.x >= box.x &&
      b.y >= box.y &&
      b.x + b.width <= box.x + box.width &&
      b.y + b.height <= box.y + box.height;
    const name = await node.getAttribute('data-node-name');
    if (inside && name) names.push(name);
  }
  return names;
}

/** Zooms around `node` (Ctrl+wheel) until it is drawn at least READABLE_NODE wide; bounded. */
async function zoomUntilReadable(page: Page, node: Locator): Promise<number> {
  for (let i = 0; i < 12; i += 1) {
    const box = await node.boundingBox();
    if (!box) throw new Error('the node to zoom around is not drawn');
    if (box.width >= READABLE_NODE) return Math.round(box.width);
    await zoomAround(page, node, 1);
  }
  return Math.round((await node.boundingBox())?.width ?? 0);
}

/**
 * A stage being built: the partial `text` (`count` nodes) pasted into a new workflow named `name`, Zoom to
 * Fit; every node must be in view, drawn READABLE_NODE wide or more.
 */
export async function stageCanvasShot(
  page: Page,
  stage: { n8n: string; text: string; count: number; name: string; label: string },
  dir: string,
  quiet: () => Promise<void>,
): Promise<void> {
  await newWorkflow(page, stage.n8n, quiet);
  doing(`pasting the stage partial ${stage.label} onto the canvas`);
  await pasteOnto(page, stage.text, stage.count, quiet);
  await renameWorkflow(page, stage.name);
  doing('shooting the canvas of the stage being built');
  await page.getByRole('button', { name: 'Zoom to Fit' }).click();
  await quiet();
  await minimapAway(page);
  const canvas = await page.locator('[data-test-id="canvas"]').boundingBox();
  if (!canvas) throw new Error('no canvas');
  const shown = await namesInside(page.locator('[data-test-id="canvas"]'), canvas);
  if (shown.length !== stage.count) {
    throw new Error(`canvas: ${shown.length} of the partial's ${stage.count} nodes in view`);
  }
  const widths = await Promise.all(
    (await page.locator('[data-test-id="canvas-node"]').all()).map(
      async (n) => (await n.boundingBox())?.width ?? 0,
    ),
  );
  const smallest = Math.round(Math.min(...widths));
  if (smallest < READABLE_NODE) throw new Error(`canvas: a node drawn ${smallest} px wide, names unreadable`);
  await shoot(page, dir, 'editor-canvas.png');
  say(
    `canvas: ${stage.label}, all ${shown.length} nodes in view, each ${smallest}+ px wide: ${shown.join(', ')}`,
  );
}

/** The Wait node's panel, every parameter in the picture (a taller window for the shot), when FILE has one. */
export async function waitPanelShot(
  page: Page,
  nodes: readonly FileNode[],
  dir: string,
  quiet: () => Promise<void>,
): Promise<void> {
  const waits = nodes.filter((n) => n.type === 'n8n-nodes-base.wait');
  const wait = waits.find((n) => n.parameters?.resume === 'webhook') ?? waits[0];
  if (!wait) return say('FILE has no Wait node: editor-wait-node.png not written');
  doing(`opening the panel of the Wait node "${wait.name}"`);
  await page.getByRole('button', { name: 'Zoom to Fit' }).click();
  await canvasNode(page, wait.name).dblclick();
  // 2.41.1's node panel (data-test-id ndv) opens on its "Parameters": Resume, HTTP Method, Limit Wait Time.
  const panel = page.locator('[data-test-id="ndv"]');
  await panel.getByText('Resume', { exact: true }).waitFor();
  await quiet();
  // What the editor prints under an expression it will not resolve (a $env one): the guide quotes it.
  for (let tries = 0; tries < 10; tries += 1) {
    // n8n writes the hint with no-break spaces.
    const text = (await panel.innerText()).replace(/\u00a0/g, ' ');
    const unresolved = /\[ERROR: [^\]\n]*\]/.exec(text)?.[0];
    if (unresolved) {
      say(`Wait node in the editor: ${unresolved}`);
      break;
    }
    await page.waitForTimeout(500);
  }
  // The panel's parameters run below an 800-pixel window: a taller window holds them all, as a trainee
  // scrolling down would read them; the shot is the panel down to its last parameter.
  doing("shooting the Wait node's whole panel");
  await page.setViewportSize({ width: VIEWPORT.width, height: 1_400 });
  await quiet();
  const items = panel.locator('[data-test-id="parameter-item"]').filter({ visible: true });
  const dialog = await panel.boundingBox();
  const last = await items.last().boundingBox();
  if (!dialog || !last) throw new Error("no parameters in the Wait node's panel");
  const clip = {
    x: Math.max(0, Math.round(dialog.x)),
    y: Math.max(0, Math.round(dialog.y)),
    width: Math.round(Math.min(dialog.width, VIEWPORT.width)),
    height: Math.round(last.y + last.height + 24 - dialog.y),
  };
  const labels: string[] = [];
  for (const item of await items.all()) {
    const b = await item.boundingBox();
    if (!b || b.y + b.height > clip.y + clip.height)
      throw new Error('a parameter of the Wait node is cut off');
    const label = (await item.innerText()).split('\n')[0]?.trim();
    if (label) labels.push(label);
  }
  await shoot(page, dir, 'editor-wait-node.png', clip);
  say(`Wait node's panel: ${labels.length} parameters in the shot: ${labels.join(', ')}`);
  await page.setViewportSize(VIEWPORT);
  await page.keyboard.press('Escape');
  await panel.waitFor({ state: 'hidden' });
}

/**
 * One alert to the production webhook, then the Executions tab with that run, zoomed to its first nodes
 * (from `first`, the trigger): their names and the item counts on their connections read in the shot.
 */
export async function executionsShot(
  page: Page,
  run: { n8n: string; path: string; alert: string; first: string },
  dir: string,
  quiet: () => Promise<void>,
): Promise<void> {
  doing('sending the alert');
  const answer = await fetch(webhookUrl(run.n8n, run.path), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: run.alert,
    signal: AbortSignal.timeout(10_000),
  });
  if (!answer.ok) throw new Error(`alert to POST /webhook/${run.path}: HTTP ${answer.status}`);
  say(`sent the alert to POST /webhook/${run.path}: HTTP ${answer.status}`);
  // 2.41.1's header switch: "Editor", "Executions", "Evaluations" (radio buttons).
  doing('opening the Executions tab');
  await page.getByRole('radio', { name: 'Executions' }).click();
  await page.waitForURL(/\/executions/);
  // The list shows the run; 2.41.1 opens the newest one. Wait until it has finished (no "Running").
  const end = Date.now() + 60_000;
  while (Date.now() < end) {
    await quiet();
    const text = await page.locator('body').innerText();
    if (/Succeeded|Error|Waiting/.test(text) && !/Running|Queued/.test(text)) break;
    await page.reload();
  }
  await quiet();
  // 2.41.1 draws the run on a canvas of its own (data-test-id execution-preview-host), fitted to the view.
  doing('zooming the run to its first nodes');
  const host = page.locator('[data-test-id="execution-preview-host"]');
  const trigger = host.locator(
    `[data-test-id="canvas-node"][data-node-name="${run.first.replace(/"/g, '\\"')}"]`,
  );
  await trigger.waitFor();
  const width = await zoomUntilReadable(page, trigger);
  await quiet();
  const box = await host.boundingBox();
  if (!box) throw new Error("no run's canvas on the Executions tab");
  const shown = await namesInside(host, box);
  const counts = [...new Set((await host.innerText()).match(/\b\d+ items?\b/g) ?? [])];
  if (shown.length < 4 || counts.length === 0) {
    throw new Error(`Executions: ${shown.length} nodes in view, item counts: ${counts.join(', ') || 'none'}`);
  }
  await grab(page); // the popovers away, the pointer off the canvas
  await shoot(page, dir, 'editor-executions.png');
  say(
    `Executions: the run zoomed to its first nodes (${width} px wide): ${shown.join(', ')}; counts ${counts.join(', ')}`,
  );
  await page.getByRole('radio', { name: 'Editor' }).click();
}
