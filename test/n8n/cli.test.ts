/**
 * app/n8n/cli.js (what the lab's tools container runs) against an n8n stand-in over real HTTP on loopback,
 * and the scripted trainee's partial workflows. The real n8n runs them in `make test-lab`.
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowBodySchema, webhookPathsOf } from '../../app/n8n/client.js';
import { STEPS, upTo } from '../lab/trainee.js';

const run = promisify(execFile);
const cli = new URL('../../dist/app/n8n/cli.js', import.meta.url).pathname;
const reference = WorkflowBodySchema.parse(
  JSON.parse(
    readFileSync(
      new URL('../../docker/n8n/workflows/suspicious-login-response.json', import.meta.url),
      'utf8',
    ),
  ),
);
const rollbackFile = new URL('../../docker/n8n/workflows/suspicious-login-rollback.json', import.meta.url)
  .pathname;
const responseFile = new URL('../../docker/n8n/workflows/suspicious-login-response.json', import.meta.url)
  .pathname;

interface Call {
  method: string;
  url: string;
  body: string;
}
let server: Server | undefined;
afterEach(() => server?.close());

beforeAll(async () => {
  // The CLI is run as the lab runs it: the built file.
  await run('npx', ['tsc', '-p', 'tsconfig.build.json'], {
    cwd: new URL('../../', import.meta.url).pathname,
  });
}, 120_000);

/** An n8n stand-in: answers from `routes` ("METHOD /path" -> [status, body]) and records every call. */
async function standIn(routes: Record<string, [number, unknown]>): Promise<{ url: string; calls: Call[] }> {
  const calls: Call[] = [];
  server = createServer(async (req: IncomingMessage, res) => {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    const key = `${req.method} ${req.url?.split('?')[0]}`;
    calls.push({ method: req.method ?? '', url: req.url ?? '', body });
    const [status, answer] = routes[key] ?? [404, { message: 'not found' }];
    if (key === 'POST /rest/login') res.setHeader('set-cookie', 'n8n-auth=session; Path=/; HttpOnly');
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return { url: `http://127.0.0.1:${address.port}`, calls };
}

async function cliRun(args: string[], env: Record<string, string>, input = '') {
  const child = execFile('node', [cli, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
  child.stdin?.end(input);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += String(d)));
  child.stderr?.on('data', (d) => (stderr += String(d)));
  const [code] = await once(child, 'exit');
  return { code: Number(code), stdout, stderr };
}

const workflow = (id: string, name: string, active: boolean, path: string) => ({
  id,
  name,
  active,
  nodes: [{ name: 'Webhook', type: 'n8n-nodes-base.webhook', parameters: { path, httpMethod: 'POST' } }],
  connections: {},
  settings: {},
});

describe('n8n cli.js solution', () => {
  it('refuses in one line, changing nothing, when a published workflow of the trainee holds the path', async () => {
    const n8n = await standIn({
      'GET /api/v1/workflows': [
        200,
        { data: [workflow('t1', 'My response', true, 'suspicious-login')], nextCursor: null },
      ],
    });
    const r = await cliRun(['solution', responseFile, rollbackFile], { N8N_URL: n8n.url, N8N_API_KEY: 'k' });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      "n8n: the published workflow 'My response' holds POST /webhook/suspicious-login: unpublish it in the editor, then run make solution again",
    );
    expect(n8n.calls.filter((c) => c.method !== 'GET')).toEqual([]);
  });

  it('control: an unpublished copy on the path does not stop it; it creates, updates by name and publishes', async () => {
    const n8n = await standIn({
      'GET /api/v1/workflows': [
        200,
        {
          data: [
            workflow('t1', 'My response', false, 'suspicious-login'),
            workflow('r2', 'Suspicious Login Rollback', true, 'suspicious-login-rollback'),
          ],
        },
      ],
      'POST /api/v1/workflows': [200, workflow('r1', 'Suspicious Login Response', false, 'suspicious-login')],
      'PUT /api/v1/workflows/r2': [
        200,
        workflow('r2', 'Suspicious Login Rollback', true, 'suspicious-login-rollback'),
      ],
      'POST /api/v1/workflows/r1/activate': [200, {}],
      'POST /api/v1/workflows/r2/activate': [200, {}],
    });
    const r = await cliRun(['solution', responseFile, rollbackFile], { N8N_URL: n8n.url, N8N_API_KEY: 'k' });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toEqual([
      "published 'Suspicious Login Response' (POST /webhook/suspicious-login)",
      "published 'Suspicious Login Rollback' (POST /webhook/suspicious-login-rollback)",
    ]);
    expect(n8n.calls.filter((c) => c.method !== 'GET').map((c) => `${c.method} ${c.url}`)).toEqual([
      'POST /api/v1/workflows',
      'POST /api/v1/workflows/r1/activate',
      'PUT /api/v1/workflows/r2',
      'POST /api/v1/workflows/r2/activate',
    ]);
    // The public API refuses a body with the export's own id, active or tags: only these four go.
    const sent = n8n.calls
      .filter((c) => c.body !== '')
      .map((c) => Object.keys(JSON.parse(c.body)).sort().join());
    expect(new Set(sent)).toEqual(new Set(['connections,name,nodes,settings']));
  });

  it('needs the API key', async () => {
    const r = await cliRun(['solution'], { N8N_URL: 'http://127.0.0.1:9' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^n8n: solution: N8N_API_KEY is not set/);
  });
});

describe('n8n cli.js setup', () => {
  const owner = {
    email: 'trainee@soar-lab.test',
    password: 'Lab-x-Aa1x',
    firstName: 'Lab',
    lastName: 'Trainee',
  };

  it('keeps a key that works, without logging in', async () => {
    const n8n = await standIn({
      'POST /rest/owner/setup': [400, { message: 'Instance owner already setup' }],
      'GET /api/v1/workflows': [200, { data: [] }],
    });
    const r = await cliRun(['setup'], { N8N_URL: n8n.url }, JSON.stringify({ ...owner, apiKey: 'good' }));
    expect(r.stdout.trim().split('\n')).toEqual(['owner exists', 'key kept']);
    expect(n8n.calls.map((c) => c.url)).not.toContain('/rest/login');
  });

  it('makes a key with the lab scopes when there is none, logged in as the owner', async () => {
    const n8n = await standIn({
      'POST /rest/owner/setup': [200, { data: {} }],
      'GET /api/v1/workflows': [401, { message: 'unauthorized' }],
      'POST /rest/login': [200, { data: {} }],
      'POST /rest/api-keys': [200, { data: { rawApiKey: 'raw-key-1' } }],
    });
    const r = await cliRun(['setup'], { N8N_URL: n8n.url }, JSON.stringify(owner));
    expect(r.stdout.trim().split('\n')).toEqual(['owner created', 'key raw-key-1']);
    const made = n8n.calls.find((c) => c.url === '/rest/api-keys');
    expect(JSON.parse(made?.body ?? '{}').scopes).toEqual(
      expect.arrayContaining(['workflow:activate', 'execution:stop', 'execution:read']),
    );
  });

  it('fails in one line when n8n refuses the login', async () => {
    const n8n = await standIn({
      'POST /rest/owner/setup': [400, {}],
      'POST /rest/login': [401, { message: 'Wrong username or password' }],
    });
    const r = await cliRun(['setup'], { N8N_URL: n8n.url }, JSON.stringify(owner));
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('n8n: login answered 401: Wrong username or password');
  });
});

describe("the scripted trainee's workflow, step by step", () => {
  it.each([
    ['validate', 6],
    ['enrich', 9],
  ] as const)('up to %s: %i nodes, and only arrows between them', (step, count) => {
    const partial = upTo(reference, STEPS[step]);
    expect(partial.nodes.map((n) => n.name)).toEqual(STEPS[step]);
    expect(partial.nodes).toHaveLength(count);
    const names = new Set(partial.nodes.map((n) => n.name));
    const targets = Object.values(partial.connections).flatMap((c) =>
      (c as { main: { node: string }[][] }).main.flat().map((t) => t.node),
    );
    expect(targets.filter((t) => !names.has(t))).toEqual([]);
    expect(Object.keys(partial.connections).every((from) => names.has(from))).toBe(true);
    expect(webhookPathsOf(partial)).toEqual(['POST suspicious-login']);
  });

  it('control: the whole reference keeps the arrow from Valid? to Enrich that a partial one drops', () => {
    const valid = (w: typeof reference) =>
      (w.connections['Valid?'] as { main: { node: string }[][] }).main[0];
    expect(valid(upTo(reference, STEPS.all))?.map((c) => c.node)).toEqual(['Enrich']);
    expect(valid(upTo(reference, STEPS.validate))).toEqual([]);
  });
});
