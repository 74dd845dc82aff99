/**
 * The simulator host over real HTTP on loopback, against a real mock API: n8n's trigger answers at once and
 * the run goes on, its Wait is resumed only by its signed URL, its runs are read as n8n's executions, and
 * it calls the mock API and nothing else.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mockApiClient } from '../../app/mock-api-client/client.js';
import { type LocalMockApi, startLocalMockApi } from '../../app/mock-api-client/local-mock-api.js';
import { StateReadingSchema } from '../../app/mock-api-client/readings.js';
import { STIMULUS_HEADER } from '../../app/runs/run.js';
import { type SimulatorHost, startSimulatorHost } from '../../app/simulator/host.js';
import { simulatorRuns, viewOf } from '../../app/simulator/runs.js';
import { guideResponseUpTo, guideWorkflowsUpTo } from '../../app/workflow/guide/state.js';
import { alertPayload, LAB_ADDRESS, LAB_USER } from '../../app/workflow/scenario.js';

const FACTS = { eventId: 'evt-host-1', sourceIp: LAB_ADDRESS, user: LAB_USER };
const ALERT = alertPayload(FACTS, { confidence: 92 });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 250; i += 1) {
    const value = await probe();
    if (value !== undefined) return value;
    await sleep(20);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const ended = (host: SimulatorHost) =>
  until('the run to end', () => {
    const run = host.runs.at(-1);
    return run && !['running', 'waiting'].includes(run.status) ? run : undefined;
  });

let api: LocalMockApi;
const mock = () => mockApiClient({ kind: 'http', url: api.url });
const state = async () => StateReadingSchema.parse((await mock().request('GET', '/state')).body);
const approvalRequest = () =>
  until('an approval request', async () => {
    const url = (await state()).notifications.find((n) => n.channel === 'approval')?.resume_url;
    return url ?? undefined;
  });

/** A host of the guide's whole workflows with this approval time limit, closed after the test file. */
const hosts: SimulatorHost[] = [];
async function guideHost(approvalSeconds: number): Promise<SimulatorHost> {
  const host = await startSimulatorHost({
    mockApiUrl: api.url,
    workflows: guideWorkflowsUpTo('rollback'),
    env: { APPROVAL_TIMEOUT_SECONDS: String(approvalSeconds) },
  });
  hosts.push(host);
  return host;
}

beforeAll(async () => {
  api = await startLocalMockApi();
});
afterEach(async () => {
  for (const host of hosts) await host.stopRuns();
  await mock().request('POST', '/reset', {});
});
afterAll(async () => {
  for (const host of hosts) await host.close();
  await api.close();
});

describe('the triggers and the resume URL', () => {
  let host: SimulatorHost;
  beforeAll(async () => {
    host = await guideHost(60);
  });

  it('answers the webhook at once while the run waits for approval', async () => {
    const answer = await post(`${host.url}/webhook/suspicious-login`, ALERT);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ message: 'Workflow was started' });
    const resumeUrl = await approvalRequest();
    expect(resumeUrl).toMatch(new RegExp(`^${host.url}/webhook-waiting/\\d+\\?signature=[0-9a-f]{64}$`));
    expect(host.runs.at(-1)).toMatchObject({
      path: 'suspicious-login',
      eventId: 'evt-host-1',
      status: 'waiting',
    });
  });

  it('answers 404 on a path no workflow listens on, and starts nothing', async () => {
    const before = host.runs.length;
    const answer = await post(`${host.url}/webhook/no-such-path`, ALERT);
    expect(answer.status).toBe(404);
    expect(host.runs.length).toBe(before);
  });

  it('refuses a resume without the right signature and keeps waiting; resumes once, then 409', async () => {
    await post(`${host.url}/webhook/suspicious-login`, ALERT);
    const resumeUrl = await approvalRequest();
    const url = new URL(resumeUrl);
    const tampered = new URL(resumeUrl);
    tampered.searchParams.set('signature', '0'.repeat(64));
    const decision = { decision: 'approve', approver: 'tester' };

    expect((await post(tampered.toString(), decision)).status).toBe(401);
    expect((await post(`${url.origin}${url.pathname}`, decision)).status).toBe(401);
    expect(host.runs.at(-1)?.status).toBe('waiting');
    expect((await post(resumeUrl, decision)).status).toBe(200);
    expect((await post(resumeUrl, decision)).status).toBe(409);

    expect(await ended(host)).toMatchObject({ status: 'success', error: null });
    expect((await state()).cases).toEqual([
      expect.objectContaining({ final_action: 'blocked', approver: 'tester' }),
    ]);
  });

  it('finds the run by its stimulus as n8n executions are found, with the real node names', async () => {
    const sentAt = new Date();
    await post(`${host.url}/webhook/suspicious-login`, ALERT, { [STIMULUS_HEADER]: 'stimulus-7' });
    await approvalRequest();
    const runs = simulatorRuns(host);
    const query = { eventId: 'stimulus-7', path: 'suspicious-login', sentAt, exclude: [] };
    const found = await runs.find(query);
    if (found.kind !== 'found') throw new Error(`no run found: ${found.kind}`);
    // As n8n shows a waiting run: the Wait node is its last node.
    expect(found.run).toMatchObject({ status: 'waiting', url: null, lastNode: 'Wait for approval' });
    expect(found.run.nodes.map((n) => n.name)).toEqual([
      'Webhook',
      'Validate',
      'Valid?',
      'Enrich',
      'Check identity',
      'Identity ok?',
      'Case lookup',
      'Select case action',
      'Decide (confidence >= 80)',
      'Duplicate delivery?',
      'Request approval',
      'Wait for approval',
    ]);
    expect(await runs.status(found.run.id)).toBe('waiting');
    expect(await runs.find({ ...query, exclude: [found.run.id] })).toEqual({ kind: 'none' });
    expect(await runs.find({ ...query, path: 'suspicious-login-rollback' })).toEqual({ kind: 'none' });
    expect(await runs.find({ ...query, sentAt: new Date(Date.now() + 60_000) })).toEqual({ kind: 'none' });
    expect(await runs.status('no-such-run')).toBeNull();
  });

  it('shows a Stop and Error as the node that errored, after the nodes before it ran', async () => {
    const { source_ip: _dropped, ...invalid } = ALERT;
    await post(`${host.url}/webhook/suspicious-login`, invalid);
    const run = await ended(host);
    expect(run).toMatchObject({ status: 'error', error: 'Alert rejected: source_ip is required' });
    const view = viewOf(run);
    expect(view.lastNode).toBe('Stop: alert rejected');
    expect(view.nodes.filter((n) => n.error !== null).map((n) => n.name)).toEqual(['Stop: alert rejected']);
    expect((await state()).notifications).toEqual([
      expect.objectContaining({ channel: 'validation', event_id: 'evt-host-1' }),
    ]);
  });

  it('ends a rollback of an unknown event at its failed case lookup, after that one request', async () => {
    await post(`${host.url}/webhook/suspicious-login-rollback`, { event_id: 'evt-none' });
    const run = await ended(host);
    expect(run.status).toBe('error');
    expect(viewOf(run).nodes.find((n) => n.error !== null)?.name).toBe('Case lookup');
    const requests = (await state()).journal.map((j) => `${j.method} ${j.path} ${j.status}`);
    expect(requests.filter((r) => !r.startsWith('POST /reset'))).toEqual(['GET /cases/evt-none 404']);
  });
});

describe('stopping runs', () => {
  let host: SimulatorHost;
  beforeAll(async () => {
    host = await guideHost(60);
  });

  it('stops the runs of the path and time asked: canceled, nothing more written', async () => {
    const sentAt = new Date();
    await post(`${host.url}/webhook/suspicious-login`, ALERT);
    const resumeUrl = await approvalRequest();
    await host.stopRuns('suspicious-login-rollback');
    await host.stopRuns('suspicious-login', new Date(Date.now() + 60_000));
    expect(host.runs.at(-1)?.status).toBe('waiting');

    expect(await simulatorRuns(host).stop('suspicious-login', sentAt)).toBe(true);
    expect(host.runs.at(-1)).toMatchObject({ status: 'canceled' });
    expect(host.runs.at(-1)?.finishedAt).not.toBeNull();
    expect((await post(resumeUrl, { decision: 'approve', approver: 'tester' })).status).toBe(409);
    await sleep(100);
    const after = await state();
    expect(after.cases).toEqual([]);
    expect(after.journal.filter((j) => j.path === '/blocklist')).toEqual([]);
  });
});

describe("the Wait node's time limit", () => {
  it('goes on without a decision when the limit passes: no block, the case says timed out', async () => {
    const host = await guideHost(1);
    await post(`${host.url}/webhook/suspicious-login`, ALERT);
    const resumeUrl = await approvalRequest();
    expect(await ended(host)).toMatchObject({ status: 'success' });
    expect((await post(resumeUrl, { decision: 'approve', approver: 'late' })).status).toBe(409);
    const after = await state();
    expect(after.cases).toEqual([
      expect.objectContaining({ result: 'approval_timed_out', final_action: 'none' }),
    ]);
    expect(after.blocklist).toEqual([]);
  });
});

describe('where a run may call', () => {
  let other: Server;
  let hits = 0;
  beforeAll(async () => {
    other = createServer((_req, res) => {
      hits += 1;
      res.end('{}');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => other.close(() => resolve())));

  it('refuses a request to any origin but the mock API: the node errors, nothing is sent', async () => {
    const address: AddressInfo | string | null = other.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    const { port } = address;
    const elsewhere = `http://127.0.0.1:${port}/identity/${LAB_USER}`;
    const host = await startSimulatorHost({
      mockApiUrl: api.url,
      workflows: [
        guideResponseUpTo('enrich', undefined, {
          Enrich: (node) => ({ ...node, parameters: { ...node.parameters, url: elsewhere } }),
        }),
      ],
    });
    hosts.push(host);
    await post(`${host.url}/webhook/suspicious-login`, ALERT);
    const run = await ended(host);
    expect(run).toMatchObject({
      status: 'error',
      error: `${elsewhere}: the simulator calls the mock API only`,
    });
    expect(viewOf(run).nodes.find((n) => n.error !== null)?.name).toBe('Enrich');
    expect(hits).toBe(0);
  });
});

describe('close()', () => {
  it('cancels a waiting run and stops listening', async () => {
    const host = await startSimulatorHost({
      mockApiUrl: api.url,
      workflows: guideWorkflowsUpTo('rollback'),
      env: { APPROVAL_TIMEOUT_SECONDS: '60' },
    });
    await post(`${host.url}/webhook/suspicious-login`, ALERT);
    await approvalRequest();
    await host.close();
    expect(host.runs.at(-1)?.status).toBe('canceled');
    await expect(post(`${host.url}/webhook/suspicious-login`, ALERT)).rejects.toThrow();
  });
});
