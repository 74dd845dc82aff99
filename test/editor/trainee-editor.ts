/**
 * A trainee in the real n8n editor, in Chromium: signs in on the sign-in page, lands on the workflows
 * overview (not n8n's AI assistant), sees no AI entry point on the overview, the canvas or the settings
 * pages (ai-markers.ts), creates a workflow, pastes FILE's nodes onto the canvas, renames it to NAME,
 * saves, publishes and waits until n8n listens on its `POST /webhook/<path>`.
 *   TRAINEE_EMAIL=... TRAINEE_PASSWORD=... [CHROMIUM=/usr/bin/chromium] npx tsx test/editor/trainee-editor.ts \
 *     --n8n http://127.0.0.1:5678 --workflow FILE.json --name NAME [--shots DIR] [--alert ALERT.json] \
 *     [--example EXAMPLE.json] [--canvas STAGE.json]
 * With --shots, screenshots for the trainee guide (guide-views.ts): the canvas, the Wait node's whole panel;
 * with --canvas too, the canvas is STAGE.json's (a stage being built: the guide's workflow after one stage)
 * pasted into a workflow of its own, else FILE's first nodes; with --alert too, ALERT.json is sent once to
 * the production webhook and the Executions tab is shot, zoomed to the run's first nodes; with --example too, EXAMPLE.json (the Connector
 * failure stage: connector-example.ts) is pasted into a second workflow and its error output and retry
 * loop are shot, cropped. An EXAMPLE.json without them is refused before Chromium starts. One line per
 * action; exit 1 with one line on failure, 2 on usage. FAILURE_SHOT=FILE.png: a screenshot of the page on
 * failure.
 * Selectors: role and text where 2.41.1 gives them; each names what 2.41.1 renders.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Browser, Page, Request } from 'playwright-core';
import { z } from 'zod';
import { postWebhookListening, webhooksOf } from '../../app/n8n/webhooks.js';
import { CHROMIUM_PATH, launchChromium } from '../helpers/chromium.js';
import { assertNoAi, settingsPages, visibleAiMarkers } from './ai-markers.js';
import { type ConnectorExample, connectorShots, readExample } from './connector-example.js';
import {
  ACTION_MS,
  canvasNode,
  canvasNodes,
  countReaches,
  currentStep,
  doing,
  pasteOnto,
  renameWorkflow,
  say,
  settle,
  shoot,
  VIEWPORT,
  zoomAround,
} from './editor-kit.js';
import { executionsShot, stageCanvasShot, waitPanelShot } from './guide-views.js';

const USAGE =
  'usage: TRAINEE_EMAIL=... TRAINEE_PASSWORD=... [CHROMIUM=...] trainee-editor.ts --n8n URL --workflow FILE.json --name NAME [--shots DIR] [--alert ALERT.json] [--example EXAMPLE.json] [--canvas STAGE.json]';

const WorkflowFileSchema = z.looseObject({
  nodes: z
    .array(
      z.looseObject({
        name: z.string().min(1),
        type: z.string().min(1),
        parameters: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .min(1),
  connections: z.record(z.string(), z.unknown()),
});
type WorkflowFile = z.infer<typeof WorkflowFileSchema>;

interface Options {
  n8n: string;
  workflowText: string;
  workflow: WorkflowFile;
  name: string;
  shots?: string;
  alert?: string;
  example?: ConnectorExample;
  /** A stage being built, for editor-canvas.png: its export and its number of nodes. */
  canvas?: { file: string; text: string; count: number };
  email: string;
  password: string;
  chromium: string;
}

class UsageError extends Error {}

function options(argv: string[], env: NodeJS.ProcessEnv): Options {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        n8n: { type: 'string' },
        workflow: { type: 'string' },
        name: { type: 'string' },
        shots: { type: 'string' },
        alert: { type: 'string' },
        example: { type: 'string' },
        canvas: { type: 'string' },
      },
    }));
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  const { n8n, workflow, name, shots, alert, example, canvas } = values;
  const email = env.TRAINEE_EMAIL;
  const password = env.TRAINEE_PASSWORD;
  if (!n8n || !workflow || !name?.trim() || !email || !password) throw new UsageError('missing argument');
  let workflowText: string;
  let parsed: WorkflowFile;
  try {
    workflowText = readFileSync(workflow, 'utf8');
    parsed = WorkflowFileSchema.parse(JSON.parse(workflowText));
  } catch (err) {
    throw new UsageError(`${workflow} is not a workflow export: ${firstLine(err)}`);
  }
  let stage: Options['canvas'];
  try {
    const text = canvas === undefined ? undefined : readFileSync(canvas, 'utf8');
    stage =
      text === undefined
        ? undefined
        : { file: canvas ?? '', text, count: WorkflowFileSchema.parse(JSON.parse(text)).nodes.length };
  } catch (err) {
    throw new UsageError(`${canvas} is not a workflow export: ${firstLine(err)}`);
  }
  let connector: ConnectorExample | undefined;
  try {
    connector = example === undefined ? undefined : readExample(readFileSync(example, 'utf8'), example);
  } catch (err) {
    throw new UsageError(firstLine(err));
  }
  return {
    n8n: n8n.replace(/\/+$/, ''),
    workflowText,
    workflow: parsed,
    name: name.trim(),
    shots,
    alert: alert === undefined ? undefined : readFileSync(alert, 'utf8'),
    example: connector,
    canvas: stage,
    email,
    password,
    chromium: env.CHROMIUM || CHROMIUM_PATH,
  };
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
}

/** The open page, for FAILURE_SHOT (a screenshot of the page when the driver fails). */
let openPage: Page | undefined;

async function run(o: Options, browser: Browser): Promise<void> {
  const context = await browser.newContext({ viewport: VIEWPORT });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: o.n8n });
  const page = await context.newPage();
  openPage = page;
  page.setDefaultTimeout(ACTION_MS);
  // The editor's REST calls in flight (fetch/XHR; n8n's push channel is a WebSocket, not counted).
  const inFlight = new Set<Request>();
  page.on('request', (r) => {
    if (['fetch', 'xhr'].includes(r.resourceType())) inFlight.add(r);
  });
  page.on('requestfinished', (r) => inFlight.delete(r));
  page.on('requestfailed', (r) => inFlight.delete(r));
  const quiet = () => settle(page, inFlight);
  if (o.shots) mkdirSync(o.shots, { recursive: true });

  // --- sign in: the trainee opens the editor's address; n8n sends an unknown visitor to /signin -------
  doing(`opening ${o.n8n}/`);
  await page.goto(`${o.n8n}/`);
  await page.waitForURL(/\/signin/);
  say(`opened ${o.n8n}/: the sign-in page`);
  // 2.41.1's sign-in form: inputs labelled "Email" and "Password", a "Sign in" button.
  doing('signing in');
  await page.getByLabel('Email').fill(o.email);
  await page.getByLabel('Password').fill(o.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page
    .waitForURL((url) => !/^\/(signin)?$/.test(url.pathname), { timeout: ACTION_MS })
    .catch(() => {
      throw new Error(`sign-in as ${o.email}: still on ${new URL(page.url()).pathname} (login refused?)`);
    });
  await quiet();
  const landed = new URL(page.url()).pathname;
  if (!landed.startsWith('/home/workflows')) {
    const found = await visibleAiMarkers(page);
    throw new Error(
      `sign-in landed on ${landed}, not the workflows overview /home/workflows${found.length ? ` (visible: ${found.join(', ')})` : ''}`,
    );
  }
  say(`signed in as ${o.email}: landed on ${landed} (the workflows overview)`);

  // --- the overview --------------------------------------------------------------------------------
  // 2.41.1's overview: "Create workflow" (a button) once a workflow exists; on an empty instance the card
  // "Build a workflow" under "Let's build your first automation".
  const create = page
    .getByRole('button', { name: 'Create workflow', exact: true })
    .or(page.getByText('Build a workflow', { exact: true }))
    .filter({ visible: true })
    .first();
  doing('waiting for the overview');
  await create.waitFor();
  await assertNoAi(page, 'the workflows overview');
  say('overview: no assistant, AI or chat entry point visible');
  await shoot(page, o.shots, 'editor-overview.png');

  // --- a new workflow, FILE pasted onto its canvas ---------------------------------------------------
  doing('creating a workflow');
  await create.click();
  await page.waitForURL(/\/workflow\//);
  // The empty canvas of 2.41.1 says "Add first step…".
  await page.getByText(/^Add first step/).waitFor();
  const workflowId = new URL(page.url()).pathname.split('/')[2] ?? '';
  say(`created a workflow (${workflowId})`);
  doing('pasting FILE onto the canvas');
  const nodes = canvasNodes(page);
  const want = o.workflow.nodes.length;
  await pasteOnto(page, o.workflowText, want, quiet);
  say(`pasted ${want} nodes onto the canvas`);
  await assertNoAi(page, 'the canvas');
  say('canvas: no assistant, AI or chat entry point visible');

  // --- rename, save, publish -------------------------------------------------------------------------
  const title = page.locator('[data-test-id="workflow-name-input"]');
  await renameWorkflow(page, o.name);
  say(`renamed the workflow to "${o.name}"`);
  // 2.41.1 shows a "Save" button only when autosave is off (N8N_WORKFLOWS_AUTOSAVE_DISABLED); with the
  // lab's default (autosave on) the editor's save control is Ctrl+S on the canvas ("save:workflow").
  doing('saving the workflow');
  const saveButton = page.getByRole('button', { name: 'Save', exact: true }).filter({ visible: true });
  if ((await saveButton.count()) > 0) {
    await saveButton.click();
    await page.getByRole('button', { name: 'Saved', exact: true }).waitFor();
  } else {
    await page.mouse.click(VIEWPORT.width / 2, 150); // an empty spot of the canvas: the canvas has focus
    await page.keyboard.press('ControlOrMeta+s');
  }
  await quiet();
  // Proof of the save, as a trainee would see it: the editor reloaded from n8n shows NAME and every node.
  await page.reload();
  await title.getByText(o.name, { exact: true }).filter({ visible: true }).waitFor();
  await countReaches(nodes, want);
  say(`saved: reloaded from n8n, "${o.name}" has ${await nodes.count()} nodes`);
  await quiet();

  if (o.shots && !o.canvas) {
    // The start of the workflow at a size one can read; the minimap (bottom left) shows the whole.
    doing('shooting the canvas');
    const first = o.workflow.nodes[0]?.name ?? '';
    await page.getByRole('button', { name: 'Zoom to Fit' }).click();
    await zoomAround(page, canvasNode(page, first), 8);
    await quiet();
    await page.waitForTimeout(2_000); // the minimap fades out after a zoom: not half-faded in the shot
    await shoot(page, o.shots, 'editor-canvas.png');
  }

  // 2.41.1's header: "Publish" (data-test-id workflow-open-publish-modal-button) opens the dialog
  // "Publish workflow" (a version name, prefilled) whose own "Publish" publishes; the header then says
  // "Published".
  doing('publishing the workflow');
  await page.getByRole('button', { name: 'Publish', exact: true }).click();
  const dialog = page.getByRole('dialog').filter({ hasText: 'Publish workflow' });
  await dialog.getByRole('button', { name: 'Publish', exact: true }).click();
  await page.getByRole('button', { name: 'Published', exact: true }).waitFor();
  // 2.41.1 then explains, once per browser, in the dialog "Workflow published" with "Got it".
  const explained = page.getByRole('dialog').filter({ hasText: 'Workflow published' });
  const gotIt = explained.getByRole('button', { name: 'Got it', exact: true });
  if (
    await gotIt.waitFor({ timeout: 5_000 }).then(
      () => true,
      () => false,
    )
  )
    await gotIt.click();
  await explained.waitFor({ state: 'hidden' });
  say('published with the editor\'s "Publish"');

  const posts = webhooksOf(o.workflow.nodes).filter((w) => w.method === 'POST');
  if (posts.length === 0) throw new Error('FILE has no Webhook node on POST: nothing to listen for');
  doing('waiting for the webhook');
  for (const hook of posts) {
    const end = Date.now() + 60_000;
    while (!(await postWebhookListening(o.n8n, hook.path))) {
      if (Date.now() > end) throw new Error(`POST /webhook/${hook.path} not listening 60 s after publishing`);
      await page.waitForTimeout(500);
    }
    say(`listening on POST /webhook/${hook.path}`);
  }

  if (o.shots) await waitPanelShot(page, o.workflow.nodes, o.shots, quiet);
  const first = o.workflow.nodes.find((n) => n.type === 'n8n-nodes-base.webhook')?.name ?? '';
  if (o.shots && o.alert !== undefined) {
    await executionsShot(
      page,
      { n8n: o.n8n, path: posts[0]?.path ?? '', alert: o.alert, first },
      o.shots,
      quiet,
    );
  }
  if (o.shots && o.alert === undefined) say('no --alert: editor-executions.png not written');

  await settingsPages(page, quiet);
  if (o.shots && o.example) await connectorShots(page, o.example, o.n8n, o.shots, quiet);
  if (o.shots && !o.example)
    say('no --example: editor-retry-loop.png and editor-error-output.png not written');
  if (o.shots && o.canvas) {
    const { file, text, count } = o.canvas;
    await stageCanvasShot(page, { n8n: o.n8n, text, count, name: o.name, label: file }, o.shots, quiet);
  }
  await context.close();
}

async function main(): Promise<void> {
  let o: Options;
  try {
    o = options(process.argv.slice(2), process.env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`trainee-editor: ${err.message}; ${USAGE}\n`);
    process.exit(2);
  }
  let browser: Browser | undefined;
  try {
    browser = await launchChromium(o.chromium);
    await run(o, browser);
  } catch (err) {
    process.stderr.write(`trainee-editor: ${currentStep()}: ${firstLine(err)}\n`);
    const shot = process.env.FAILURE_SHOT;
    if (shot) await openPage?.screenshot({ path: shot }).catch(() => undefined);
    process.exitCode = 1;
  } finally {
    await browser?.close();
  }
}

await main();
