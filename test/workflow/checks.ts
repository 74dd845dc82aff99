/**
 * Static checks of n8n export files (docker/workflows/) against the mock API's contract and the pinned
 * n8n's node catalogue. Each returns a list of problems (empty = pass), so a test can show both that the
 * guide's workflows pass and that a deliberately broken copy is caught. How the workflows behave is the
 * offline check's to judge (./offline-check.ts); these say what holds before anything runs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { N8nExport, N8nExportNode } from '../../app/workflow/export.js';

export const ROOT = join(import.meta.dirname, '..', '..');
export const WORKFLOW_DIR = join(ROOT, 'docker', 'workflows');

const NodeSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  typeVersion: z.number(),
  position: z.tuple([z.number(), z.number()]),
  webhookId: z.string().optional(),
  onError: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()),
});

/** An export as a file holds it; unknown fields (a node's `credentials`) are kept for the checks to see. */
export const N8nExportSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  active: z.boolean(),
  settings: z.record(z.string(), z.unknown()),
  nodes: z.array(NodeSchema),
  connections: z.record(
    z.string(),
    z.object({
      main: z.array(z.array(z.object({ node: z.string(), type: z.literal('main'), index: z.number() }))),
    }),
  ),
  pinData: z.record(z.string(), z.unknown()),
  meta: z.record(z.string(), z.unknown()),
  tags: z.array(z.string()),
});

export function parseExport(text: string): N8nExport {
  return N8nExportSchema.parse(JSON.parse(text));
}

export const readExport = (path: string): N8nExport => parseExport(readFileSync(path, 'utf8'));

/** The committed catalogue of the pinned n8n (test/pinned-n8n/extract-node-types.mjs). */
export const NodeTypeFixtureSchema = z.object({
  n8n: z.string(),
  nodes: z.record(z.string(), z.array(z.number())),
});
export type NodeTypeFixture = z.infer<typeof NodeTypeFixtureSchema>;

export const readNodeTypes = (): NodeTypeFixture =>
  NodeTypeFixtureSchema.parse(
    JSON.parse(readFileSync(join(ROOT, 'test', 'pinned-n8n', 'node-types-2.41.1.json'), 'utf8')),
  );

/** Every HTTP Request URL starts with this: the mock API's address as the lab gives it to n8n. */
export const BASE_URL = '={{ $env.MOCK_API_URL }}';

/**
 * The mock API routes a workflow may call (docs/api-contract.md). /control/*, /state and /reset are the
 * trainer's and the checker's, never the workflow's.
 */
export const WORKFLOW_ROUTES = [
  'GET /health',
  'GET /identity/{param}',
  'GET /cases/{param}',
  'POST /cases',
  'POST /notify',
  'POST /blocklist',
  'GET /blocklist/{param}',
  'DELETE /blocklist/{param}',
] as const;

/** The variables the lab gives n8n (compose and deploy/kubernetes/base/n8n.yaml): no secret among them. */
export const LAB_ENV = ['MOCK_API_URL', 'APPROVAL_TIMEOUT_SECONDS'] as const;

const HTTP = 'n8n-nodes-base.httpRequest';
const WAIT = 'n8n-nodes-base.wait';
const WEBHOOK = 'n8n-nodes-base.webhook';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Every string parameter of a node, with its path, e.g. `jsonBody` or `conditions.conditions.0.leftValue`. */
export function stringParams(value: unknown, path = ''): [string, string][] {
  if (typeof value === 'string') return [[path, value]];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => stringParams(v, path === '' ? k : `${path}.${k}`));
}

/** An HTTP Request node's `METHOD /path`, each `{{ ... }}` of the path as `{param}`. */
export function routeOf(n: N8nExportNode): string {
  const url = str(n.parameters.url);
  const path = url.startsWith(BASE_URL) ? url.slice(BASE_URL.length) : url;
  return `${str(n.parameters.method) || 'GET'} ${path.replace(/\{\{.*?\}\}/g, '{param}')}`;
}

export const httpNodes = (wf: N8nExport): N8nExportNode[] => wf.nodes.filter((n) => n.type === HTTP);

/** Every node type and typeVersion exists in the pinned n8n (the committed fixture). */
export function checkNodeTypes(wf: N8nExport, fixture: NodeTypeFixture): string[] {
  const problems: string[] = [];
  for (const n of wf.nodes) {
    const versions = fixture.nodes[n.type];
    if (!versions) problems.push(`${n.name}: node type ${n.type} does not exist in n8n ${fixture.n8n}`);
    else if (!versions.includes(n.typeVersion))
      problems.push(
        `${n.name}: ${n.type} has no typeVersion ${n.typeVersion} in n8n ${fixture.n8n} (${versions.join(', ')})`,
      );
  }
  return problems;
}

/** Names and ids are unique, connections name existing nodes, webhooks and waits have webhook ids. */
export function checkWellFormed(wf: N8nExport): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  const ids = new Set<string>();
  for (const n of wf.nodes) {
    if (names.has(n.name)) problems.push(`duplicate node name ${n.name}`);
    if (ids.has(n.id)) problems.push(`duplicate node id ${n.id}`);
    names.add(n.name);
    ids.add(n.id);
    if ((n.type === WEBHOOK || n.type === WAIT) && !n.webhookId) problems.push(`${n.name}: no webhookId`);
  }
  for (const [from, { main }] of Object.entries(wf.connections)) {
    if (!names.has(from)) problems.push(`connection from unknown node ${from}`);
    for (const c of main.flat())
      if (!names.has(c.node)) problems.push(`${from} connects to unknown ${c.node}`);
  }
  if (wf.settings.executionOrder !== 'v1') problems.push('settings.executionOrder must be v1');
  return problems;
}

/**
 * Every HTTP Request node calls a route of the workflow's part of the contract at `$env.MOCK_API_URL`;
 * a POST sends a JSON body, a GET or DELETE none; no parameter of any node names an address of its own.
 */
export function checkHttpRoutes(wf: N8nExport, routes: readonly string[] = WORKFLOW_ROUTES): string[] {
  const problems: string[] = [];
  for (const n of httpNodes(wf)) {
    const url = str(n.parameters.url);
    const route = routeOf(n);
    if (!url.startsWith(`${BASE_URL}/`))
      problems.push(`${n.name}: URL ${url} does not start with ${BASE_URL}/`);
    else if (!routes.includes(route)) problems.push(`${n.name}: ${route} is not a route of the workflow`);
    if (route.startsWith('POST ')) {
      const json = n.parameters.sendBody === true && n.parameters.specifyBody === 'json';
      if (!json || !str(n.parameters.jsonBody).startsWith('={{'))
        problems.push(`${n.name}: a POST sends a JSON body (Send Body, JSON, an expression)`);
    } else if (n.parameters.sendBody === true) problems.push(`${n.name}: a ${route} sends no body`);
  }
  for (const n of wf.nodes)
    for (const [path, text] of stringParams(n.parameters))
      if (/https?:\/\//.test(text)) problems.push(`${n.name}: ${path} names an address of its own`);
  return problems;
}

/** `$env` is read only for what the lab gives n8n: a workflow that reads another variable gets nothing. */
export function checkEnv(wf: N8nExport, known: readonly string[] = LAB_ENV): string[] {
  return wf.nodes.flatMap((n) =>
    stringParams(n.parameters).flatMap(([, text]) =>
      [...text.matchAll(/\$env(?:\.(\w+)|\[\s*['"](\w+)['"]\s*\])/g)]
        .map((m) => m[1] ?? m[2] ?? '')
        .filter((name) => !known.includes(name))
        .map((name) => `${n.name}: reads $env.${name}, which the lab does not set`),
    ),
  );
}

/**
 * No credentials: the mock API takes none, and an export that names one does not import cleanly into
 * another n8n (the trainee's, a classmate's). No node carries `credentials`, an authentication other than
 * none, or request headers (where a token would go).
 */
export function checkNoCredentials(wf: N8nExport): string[] {
  const problems: string[] = [];
  for (const n of wf.nodes) {
    if ('credentials' in n) problems.push(`${n.name}: carries credentials`);
    const auth = n.parameters.authentication;
    if (auth !== undefined && auth !== 'none') problems.push(`${n.name}: authentication ${String(auth)}`);
    if (n.parameters.sendHeaders === true || 'headerParameters' in n.parameters)
      problems.push(`${n.name}: sends headers of its own`);
  }
  return problems;
}

/** One Webhook: POST on `path`, answering at once (the checker's trigger needs its 200 before the run ends). */
export function checkWebhook(wf: N8nExport, path: string): string[] {
  const hooks = wf.nodes.filter((n) => n.type === WEBHOOK);
  const [hook] = hooks;
  if (hooks.length !== 1 || hook === undefined) return [`expected one Webhook, found ${hooks.length}`];
  const p = hook.parameters;
  const problems: string[] = [];
  if (p.httpMethod !== 'POST') problems.push(`${hook.name}: HTTP Method must be POST`);
  if (p.path !== path) problems.push(`${hook.name}: Path must be ${path}`);
  if (p.responseMode !== 'onReceived') problems.push(`${hook.name}: Respond must be Immediately`);
  return problems;
}

const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (body: string) => unknown;

/**
 * The JavaScript compiles: every Code node's jsCode (n8n runs it as the body of an async function) and
 * every `{{ ... }}` of an expression parameter (`=...`). Nothing is executed.
 */
export function checkJavaScript(wf: N8nExport): string[] {
  const problems: string[] = [];
  const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
  for (const n of wf.nodes) {
    if (n.type === 'n8n-nodes-base.code') {
      try {
        new AsyncFunction(str(n.parameters.jsCode));
      } catch (error) {
        problems.push(`${n.name}: jsCode does not compile: ${message(error)}`);
      }
    }
    for (const [path, text] of stringParams(n.parameters)) {
      if (!text.startsWith('=') || path === 'jsCode') continue;
      for (const [, expr] of text.matchAll(/\{\{([\s\S]*?)\}\}/g)) {
        try {
          new Function(`return (${expr});`);
        } catch (error) {
          problems.push(`${n.name}: expression in ${path} does not compile: ${message(error)}`);
        }
      }
    }
  }
  return problems;
}
