/**
 * The guide's Connector failure stage in the editor, from an example workflow (connector-failure.json): the
 * case system's Record node, an HTTP Request set to On Error "Continue (using error output)", and the retry
 * loop on its error output (the owner told, GET /health polled with a Wait, then Record run again, and
 * nothing before it). `readExample` says in one line what a file lacks; `connectorShots` pastes the example
 * into a new workflow and writes editor-retry-loop.png (the loop on the canvas) and editor-error-output.png
 * (Record's Settings tab beside its two outputs on the canvas), each cropped to what it shows.
 */
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { z } from 'zod';
import {
  ACTION_MS,
  around,
  type Clip,
  canvasNode,
  canvasNodes,
  doing,
  grab,
  minimapAway,
  nodeExtent,
  pasteOnto,
  say,
  shoot,
  zoomAround,
} from './editor-kit.js';

const ExampleSchema = z.looseObject({
  nodes: z
    .array(
      z.looseObject({
        name: z.string().min(1),
        type: z.string().min(1),
        onError: z.string().optional(),
        parameters: z.record(z.string(), z.unknown()).default({}),
      }),
    )
    .min(1),
  connections: z.record(
    z.string(),
    z.looseObject({ main: z.array(z.array(z.looseObject({ node: z.string() })).nullable()) }),
  ),
});
type ExampleNode = z.infer<typeof ExampleSchema>['nodes'][number];

export interface ConnectorExample {
  /** The export, as pasted. */
  text: string;
  nodes: ExampleNode[];
  /** The HTTP Request node with the error output. */
  record: string;
  /** The nodes Record's error output leads to. */
  onError: string[];
  /** The nodes of the retry loop, from Record's error output back to Record (Record not included). */
  loop: string[];
}

const HTTP = 'n8n-nodes-base.httpRequest';
const WAIT = 'n8n-nodes-base.wait';
const TRIGGER = 'n8n-nodes-base.webhook';

/** Every node reached from `starts` along any output, not going on from the nodes in `stop`. */
function reached(
  next: (name: string) => string[],
  starts: readonly string[],
  stop: ReadonlySet<string>,
): Set<string> {
  const seen = new Set<string>();
  const todo = [...starts];
  for (let name = todo.pop(); name !== undefined; name = todo.pop()) {
    if (seen.has(name)) continue;
    seen.add(name);
    if (!stop.has(name)) todo.push(...next(name));
  }
  return seen;
}

/** The example in `text` (from `file`), or an Error whose message says in one line what it lacks. */
export function readExample(text: string, file: string): ConnectorExample {
  const parsed = ExampleSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${file} is not a workflow export`);
  const { nodes, connections } = parsed.data;
  const outputs = (name: string) => (connections[name]?.main ?? []).map((o) => (o ?? []).map((c) => c.node));
  const next = (name: string) => outputs(name).flat();
  const before = (name: string) => nodes.filter((n) => next(n.name).includes(name)).map((n) => n.name);

  const http = nodes.find((n) => n.type === HTTP && n.onError === 'continueErrorOutput');
  if (http === undefined) {
    throw new Error(
      `${file} has no HTTP Request node with On Error "Continue (using error output)": editor-error-output.png shows one`,
    );
  }
  const record = http.name;
  const onError = outputs(record)[1] ?? [];
  if (onError.length === 0) throw new Error(`${file}: the error output of "${record}" leads nowhere`);
  const back = reached(before, [record], new Set());
  const loop = [...reached(next, onError, new Set([record]))].filter((n) => n !== record && back.has(n));
  const isHealth = (n: ExampleNode) =>
    n.type === HTTP && (n.parameters.method ?? 'GET') === 'GET' && /\/health$/.test(String(n.parameters.url));
  const inLoop = nodes.filter((n) => loop.includes(n.name));
  if (!inLoop.some(isHealth) || !inLoop.some((n) => n.type === WAIT)) {
    throw new Error(
      `${file} has no retry loop from the error output of "${record}" back into it through GET /health and a Wait node: editor-retry-loop.png shows one`,
    );
  }
  // What runs before Record on its way in (from the trigger) must not run again in the retry.
  const triggers = nodes.filter((n) => n.type === TRIGGER).map((n) => n.name);
  const ahead = [...reached(next, triggers, new Set([record]))].filter((n) => loop.includes(n));
  if (ahead.length > 0) {
    throw new Error(`${file}: the retry runs ${ahead.join(', ')} again, not only "${record}"`);
  }
  return { text, nodes, record, onError, loop };
}

/** How far apart the framed nodes and the edge of a crop are, in CSS pixels. */
const MARGIN = 28;
/** Each "Zoom In" of 2.41.1 multiplies the zoom by 1.2. */
const ZOOM_STEP = 1.2;
/** The canvas's own controls (the toolbar on the right, the zoom buttons below): the loop stays clear of them. */
const CONTROLS = 80;

/** The region the nodes take on the canvas, their names and output labels included. */
async function nodesRegion(page: Page, names: readonly string[]): Promise<Clip> {
  const extents: Clip[] = [];
  for (const name of names) extents.push(await nodeExtent(canvasNode(page, name)));
  return around(extents, 0);
}

/** The example's nodes but its trigger, with the connections between them: the region the loop takes. */
async function loopRegion(page: Page, example: ConnectorExample): Promise<Clip> {
  const nodes = await nodesRegion(
    page,
    example.nodes.filter((n) => n.type !== TRIGGER).map((n) => n.name),
  );
  const edges: Clip[] = [];
  for (const edge of await page.locator('[data-test-id="edge"]').all()) {
    const box = await edge.boundingBox();
    // An edge from the trigger starts left of the first node; every other edge starts at or after it.
    if (box && box.x >= nodes.x - 5) edges.push(box);
  }
  return around([nodes, ...edges], 0);
}

/** Waits (bounded) until the input shows `value` (2.41.1 shows a chosen option as an input's value). */
async function showsValue(input: Locator, value: string): Promise<void> {
  const end = Date.now() + ACTION_MS;
  for (let shown = ''; shown !== value; shown = await input.inputValue().catch(() => '')) {
    if (Date.now() > end) throw new Error(`the field shows "${shown}", not "${value}"`);
    await input.page().waitForTimeout(200);
  }
}

/** The images side by side, an arrow between them, on white: one PNG at `path`. */
async function sideBySide(page: Page, parts: readonly Buffer[], path: string): Promise<void> {
  const composer = await page.context().newPage();
  const img = (png: Buffer) =>
    `<img style="border:1px solid #d0d0d0" src="data:image/png;base64,${png.toString('base64')}">`;
  await composer.setContent(
    `<body style="margin:0"><div id="shot" style="display:inline-flex;align-items:center;gap:16px;padding:16px;background:#fff;font:32px sans-serif;color:#888">${parts.map(img).join('<span>&rarr;</span>')}</div></body>`,
  );
  await composer.locator('#shot').screenshot({ path });
  await composer.close();
  say(`wrote ${path}`);
}

/** A new workflow with the example pasted; then the two screenshots. */
export async function connectorShots(
  page: Page,
  example: ConnectorExample,
  n8n: string,
  dir: string,
  quiet: () => Promise<void>,
): Promise<void> {
  doing('creating a workflow for the example');
  await page.goto(`${n8n}/home/workflows`);
  await quiet();
  await page
    .getByRole('button', { name: 'Create workflow', exact: true })
    .filter({ visible: true })
    .first()
    .click();
  await page.waitForURL(/\/workflow\//);
  await page.getByText(/^Add first step/).waitFor();
  doing('pasting the example onto the canvas');
  await pasteOnto(page, example.text, example.nodes.length, quiet);
  say(`pasted the example's ${example.nodes.length} nodes onto a new workflow`);

  // The loop as large as the canvas holds it clear of its controls: Zoom to Fit, then Zoom In while it fits.
  doing('shooting the retry loop');
  await page.getByRole('button', { name: 'Zoom to Fit' }).click();
  await quiet();
  const canvas = await page.locator('[data-test-id="canvas"]').boundingBox();
  if (!canvas) throw new Error('no canvas');
  const fits = (size: number, room: number) => size * ZOOM_STEP + 2 * (MARGIN + CONTROLS) < room;
  for (let i = 0; i < 6; i += 1) {
    const region = await loopRegion(page, example);
    if (!fits(region.width, canvas.width) || !fits(region.height, canvas.height)) break;
    await page.getByRole('button', { name: 'Zoom In' }).click();
    await page.waitForTimeout(400);
  }
  await minimapAway(page);
  await shoot(page, dir, 'editor-retry-loop.png', around([await loopRegion(page, example)], MARGIN));

  // Record's two outputs on the canvas, beside its Settings tab with On Error "Continue (using error output)".
  // Zoomed in on Record (its output labels are small): as wide as the settings column beside it.
  const outputNodes = [example.record, ...example.onError];
  for (let i = 0; i < 10 && (await nodesRegion(page, outputNodes)).width < 400; i += 1) {
    await zoomAround(page, canvasNode(page, example.record), 1);
  }
  await minimapAway(page);
  const outputs = await grab(page, around([await nodesRegion(page, outputNodes)], 16));
  doing(`opening the settings of "${example.record}"`);
  await canvasNode(page, example.record).dblclick();
  const panel = page.locator('[data-test-id="ndv"]');
  await panel.getByText('Settings', { exact: true }).click();
  const onError = panel.locator('[data-test-id="parameter-item"]').filter({ hasText: 'On Error' }).first();
  await showsValue(onError.locator('input').first(), 'Continue (using error output)');
  await quiet();
  // The panel's middle column, from its tabs down to On Error.
  const column = await panel.locator('.node-settings').filter({ visible: true }).first().boundingBox();
  const field = await onError.boundingBox();
  if (!column || !field) throw new Error("no settings column in the node's panel");
  const settings = await grab(page, {
    ...column,
    height: Math.round(field.y + field.height + 14 - column.y),
  });
  await sideBySide(page, [settings, outputs], join(dir, 'editor-error-output.png'));
  await page.keyboard.press('Escape');
  await panel.waitFor({ state: 'hidden' });
  if ((await canvasNodes(page).count()) !== example.nodes.length) throw new Error('the example lost nodes');
}
