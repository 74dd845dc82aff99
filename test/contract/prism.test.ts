/**
 * A Prism validation proxy (with --errors) in front of the real service: the mock-API traffic of every
 * route, valid and invalid, crosses it with no response violation; a deliberately broken response is
 * answered by Prism as a violation, so the check can fail.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, defaultDeps } from '../../app/api/app.js';
import type { AppEnv } from '../../app/api/http/env.js';
import type { RunningServer } from '../../app/api/server.js';
import { bin, fetchDocument, type OpenApiDocument, ROOT, startService, tempDir } from './tools.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const BREAK = 'x-contract-test';

/**
 * The real app, and nothing else unless a request carries `x-contract-test: break-response`: then the
 * answer loses its `version` field (a test-only fault, to prove Prism catches a broken response).
 */
function upstreamApp(): Hono<AppEnv> {
  const real = createApp(defaultDeps());
  const upstream = new Hono<AppEnv>();
  upstream.all('*', async (c) => {
    const res = await real.fetch(c.req.raw, c.env);
    if (c.req.header(BREAK) !== 'break-response') return res;
    const { version: _dropped, ...body } = (await res.json()) as Record<string, unknown>;
    return new Response(JSON.stringify(body), { status: res.status, headers: res.headers });
  });
  return upstream;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

let service: RunningServer;
let prism: ChildProcess | undefined;
let prismUrl = '';
let prismLog = '';
let removeTemp: () => Promise<void> = async () => {};
let doc: OpenApiDocument;

beforeAll(async () => {
  service = await startService(upstreamApp());
  const tmp = await tempDir();
  removeTemp = tmp.remove;
  doc = await fetchDocument(service.url);
  const docPath = await tmp.write('openapi.json', doc);
  const port = await freePort();
  prismUrl = `http://127.0.0.1:${port}`;
  const child = spawn(
    bin('prism'),
    ['proxy', docPath, service.url, '--errors', '--host', '127.0.0.1', '--port', String(port)],
    { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } },
  );
  prism = child;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Prism did not start:\n${prismLog}`)), 45_000);
    const onData = (d: Buffer) => {
      prismLog += d;
      if (prismLog.includes('Prism is listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`Prism exited ${code}:\n${prismLog}`)));
  });
}, 60_000);

afterAll(async () => {
  if (prism && prism.exitCode === null) {
    const exited = new Promise((resolve) => prism?.once('exit', resolve));
    prism.kill('SIGTERM');
    await exited;
  }
  await service?.close(200);
  await removeTemp();
});

interface Step {
  method: string;
  path: string;
  /** A JSON value, or raw text with its own content type. */
  body?: unknown;
  raw?: { text: string; type: string };
  headers?: Record<string, string>;
  /** What the service answers, straight or through Prism. */
  status: number;
  /** A valid request by the document: Prism must forward it. */
  valid: boolean;
}

const json = (method: string, path: string, body: unknown, status: number, valid = status < 400): Step => ({
  method,
  path,
  body,
  status,
  valid,
});
const get = (path: string, status: number, valid = status !== 400): Step => ({
  method: 'GET',
  path,
  status,
  valid,
});

const BLOCK = { ip: '203.0.113.66', event_id: 'evt-42', expires_minutes: 10 };

/** The mock-API traffic: the lab exercise, every route's refusals, and the POST rules. */
const TRAFFIC: Step[] = [
  json('POST', '/reset', {}, 200),
  get('/health', 200),
  get('/identity/lab-admin', 200),
  get('/identity/nobody', 404),
  get(`/identity/${'x'.repeat(129)}`, 400),
  get('/cases/evt-42', 404),
  get(`/cases/${'x'.repeat(129)}`, 400),
  json('POST', '/notify', { channel: 'approval', message: 'Block 203.0.113.66?', event_id: 'evt-42' }, 202),
  json('POST', '/notify', { message: 'kept', ticket: { id: 7 }, severity: 'high' }, 202),
  json('POST', '/blocklist', BLOCK, 201),
  get('/blocklist/203.0.113.66', 200),
  json('POST', '/blocklist', BLOCK, 409),
  json('POST', '/blocklist', { ...BLOCK, ip: '198.51.100.7' }, 403),
  json(
    'POST',
    '/cases',
    {
      event_id: 'evt-42',
      approver: 'alice.analyst',
      result: 'blocked',
      final_action: 'blocked',
      verification: { blocked: true },
      evidence: { source_ip: '203.0.113.66' },
      expiry: { expires_minutes: 10 },
      rollback: null,
      ticket: 'kept as sent',
    },
    201,
  ),
  get('/cases/evt-42', 200),
  json('POST', '/control/clock', { advance_minutes: 10 }, 200),
  get('/blocklist/203.0.113.66', 200),
  { method: 'DELETE', path: '/blocklist/203.0.113.66', status: 404, valid: true },
  json('POST', '/blocklist', BLOCK, 201),
  { method: 'DELETE', path: '/blocklist/203.0.113.66', status: 200, valid: true },
  json('POST', '/control/case-mode', { mode: 'fail_next_write' }, 200),
  json('POST', '/cases', { event_id: 'evt-42', result: 'retry' }, 503),
  json('POST', '/cases', { event_id: 'evt-42', result: 'retry' }, 200),
  json('POST', '/control/case-mode', { mode: 'failed' }, 200),
  get('/cases/evt-42', 503),
  json('POST', '/control/case-mode', { mode: 'healthy' }, 200),
  get('/state', 200),
  get('/openapi.json', 200),
  // Invalid requests of every route.
  get('/blocklist/not-an-ip', 400),
  { method: 'DELETE', path: '/blocklist/1.2.3.256', status: 400, valid: false },
  json('POST', '/blocklist', { ...BLOCK, note: 'unknown field' }, 422),
  json('POST', '/blocklist', { ...BLOCK, expires_minutes: 61 }, 422),
  json('POST', '/blocklist', { ...BLOCK, ip: 'nope' }, 422),
  json('POST', '/cases', { result: 'no event_id' }, 422),
  json('POST', '/cases', { event_id: 'evt-1', approver: 5 }, 422),
  json('POST', '/notify', { message: '' }, 422),
  json('POST', '/control/case-mode', { mode: 'broken' }, 422),
  json('POST', '/control/clock', { advance_minutes: 0 }, 422),
  json('POST', '/control/clock', { advance_minutes: 5, extra: true }, 422),
  json('POST', '/reset', { everything: true }, 422),
  // The POST rules.
  { method: 'POST', path: '/notify', raw: { text: 'hello', type: 'text/plain' }, status: 415, valid: false },
  {
    method: 'POST',
    path: '/notify',
    raw: { text: '[1]', type: 'application/json' },
    status: 400,
    valid: false,
  },
  {
    method: 'POST',
    path: '/notify',
    raw: { text: JSON.stringify({ message: 'x'.repeat(70_000) }), type: 'application/json' },
    status: 413,
    valid: false,
  },
  { method: 'DELETE', path: '/health', status: 405, valid: false },
  get('/no-such-route', 404, false),
  json('POST', '/reset', {}, 200),
];

interface Answer {
  status: number;
  type: string;
  violations: string | null;
  body: string;
}

async function send(base: string, step: Step, headers: Record<string, string> = {}): Promise<Answer> {
  const text = step.raw?.text ?? (step.body === undefined ? undefined : JSON.stringify(step.body));
  const type = step.raw?.type ?? 'application/json';
  const res = await fetch(`${base}${step.path}`, {
    method: step.method,
    headers: text === undefined ? headers : { 'content-type': type, ...headers },
    ...(text !== undefined && { body: text }),
  });
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    violations: res.headers.get('sl-violations'),
    body: await res.text(),
  };
}

/**
 * Where Prism refuses a request itself, the service's own answer to it never crosses the proxy: it is
 * checked here against the same document, with the response schema of the route's status (or default).
 */
function responseProblems(step: Step, answer: Answer): string {
  const template = Object.keys(doc.paths).find((p) =>
    new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(step.path),
  );
  const operation = template ? doc.paths[template]?.[step.method.toLowerCase()] : undefined;
  let response: unknown = operation?.responses[String(answer.status)] ?? operation?.responses.default;
  if (!operation) response = { $ref: '#/components/responses/Error' };
  const ref = (response as { $ref?: string } | undefined)?.$ref;
  if (ref)
    response = (doc.components as Record<string, Record<string, unknown>>).responses?.[
      ref.split('/').pop() ?? ''
    ];
  const schema = (response as { content?: Record<string, { schema: object }> } | undefined)?.content?.[
    'application/json'
  ]?.schema;
  if (!schema) return `no response ${answer.status} declared`;
  // The document's `#/components/...` references resolve when the components sit at the schema's root.
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  const validate = ajv.compile({ ...schema, components: doc.components });
  return validate(JSON.parse(answer.body)) ? '' : ajv.errorsText(validate.errors);
}

/** Prism's own answers are problem+json; the service never sends that type. */
const fromPrism = (a: Answer) => a.type.startsWith('application/problem+json');

describe('a Prism proxy (--errors) in front of the real service', () => {
  it('carries the mock-API traffic of every route with no response violation', async () => {
    const forwarded: string[] = [];
    const refusedByPrism: string[] = [];
    for (const step of TRAFFIC) {
      const label = `${step.method} ${step.path.slice(0, 60)}`;
      const answer = await send(prismUrl, step);
      expect(answer.body, `${label}: a response violation`).not.toContain('prism/errors#VIOLATIONS');
      expect(answer.violations ?? '', `${label}: violations`).not.toContain('"response"');
      if (fromPrism(answer)) {
        // Prism refused the request by the document: the service must refuse the very same request.
        expect(step.valid, `${label}: Prism refused a valid request: ${answer.body}`).toBe(false);
        const direct = await send(service.url, step);
        expect(direct.status, `${label} straight to the service`).toBe(step.status);
        expect(responseProblems(step, direct), `${label}: the service's answer`).toBe('');
        refusedByPrism.push(label);
      } else {
        expect(answer.status, `${label}: ${answer.body}`).toBe(step.status);
        forwarded.push(label);
      }
    }
    // Most traffic reaches the service: every valid request and the refusals the document cannot express.
    expect(forwarded.length).toBeGreaterThanOrEqual(TRAFFIC.filter((s) => s.valid).length);
    expect(refusedByPrism.length).toBeGreaterThan(5);
  }, 60_000);

  it('answers a deliberately broken response as a violation', async () => {
    const intact = await send(prismUrl, get('/health', 200));
    expect(intact.status).toBe(200);
    const broken = await send(prismUrl, get('/health', 200), { [BREAK]: 'break-response' });
    expect(broken.status).toBe(500);
    expect(broken.body).toContain('prism/errors#VIOLATIONS');
    expect(broken.body).toContain("required property 'version'");
  });
});
