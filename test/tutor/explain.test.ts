/**
 * The tutor's explanation of a run, on runs of the guide's workflow (whole, cut at a stage, or with one of
 * the checker's broken variants) made by the simulator against a real mock API: which alert it was, the
 * stages it went through, what the systems received, and the first expectation of the checker it did not
 * meet, with its hint, its want/got line and the node to blame. What cannot be told is said.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findIdentity } from '../../app/api/schemas/identities.js';
import { REFERENCE_VARIANTS } from '../../app/check/variants.js';
import { mockApiClient } from '../../app/mock-api-client/client.js';
import { type LocalMockApi, startLocalMockApi } from '../../app/mock-api-client/local-mock-api.js';
import { StateReadingSchema } from '../../app/mock-api-client/readings.js';
import { type RunDetail, STIMULUS_HEADER } from '../../app/runs/run.js';
import { type SimulatedRun, type SimulatorHost, startSimulatorHost } from '../../app/simulator/host.js';
import { viewOf } from '../../app/simulator/runs.js';
import { ALERT_SHOWN_BYTES, explainRun, fromChecker } from '../../app/tutor/explain.js';
import type { N8nExport } from '../../app/workflow/export.js';
import {
  guideResponseUpTo,
  guideWorkflowsUpTo,
  type WorkflowOverrides,
} from '../../app/workflow/guide/state.js';
import { alertPayload, LAB_ADDRESS, LAB_USER } from '../../app/workflow/scenario.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let api: LocalMockApi;
const mock = () => mockApiClient({ kind: 'http', url: api.url });
const state = async () => StateReadingSchema.parse((await mock().request('GET', '/state')).body);
const hosts: SimulatorHost[] = [];
let n = 0;

beforeAll(async () => {
  api = await startLocalMockApi();
});
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
  await mock().request('POST', '/reset', {});
});
afterAll(() => api.close());

async function host(workflows: N8nExport[], approvalSeconds = 30): Promise<SimulatorHost> {
  const h = await startSimulatorHost({
    mockApiUrl: api.url,
    workflows,
    env: { APPROVAL_TIMEOUT_SECONDS: String(approvalSeconds) },
  });
  hosts.push(h);
  return h;
}
const whole = (variant: WorkflowOverrides = {}) => host(guideWorkflowsUpTo('rollback', undefined, variant));

function alert(extra: Record<string, unknown> = {}): Record<string, unknown> {
  n += 1;
  return {
    ...alertPayload({ eventId: `evt-tutor-${n}`, sourceIp: LAB_ADDRESS, user: LAB_USER }, { confidence: 92 }),
    ...extra,
  };
}

async function send(
  h: SimulatorHost,
  body: unknown,
  path = 'suspicious-login',
  headers = {},
): Promise<SimulatedRun> {
  const before = h.runs.length;
  await fetch(`${h.url}/webhook/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  for (let i = 0; i < 300; i += 1) {
    const run = h.runs[before];
    if (run !== undefined && run.status !== 'running') return run;
    await sleep(20);
  }
  throw new Error('the run did not end or wait');
}

async function answer(decision: 'approve' | 'reject', run: SimulatedRun): Promise<SimulatedRun> {
  const url = (await state()).notifications.find(
    (x) => x.resume_url !== undefined && x.event_id === run.eventId,
  )?.resume_url;
  if (url === undefined) throw new Error('no approval request');
  await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ decision, approver: 'Dana' }),
  });
  for (let i = 0; i < 300 && run.status !== 'success' && run.status !== 'error'; i += 1) await sleep(20);
  return run;
}

function detailOf(run: SimulatedRun): RunDetail {
  const webhook = run.steps.find((s) => s.type === 'n8n-nodes-base.webhook');
  return {
    head: {
      id: run.id,
      status: run.status,
      startedAt: run.startedAt.toISOString(),
      stoppedAt: run.finishedAt?.toISOString() ?? null,
      workflowId: null,
      mode: 'webhook',
    },
    view: viewOf(run),
    workflow: run.workflow,
    trigger: (webhook?.output as RunDetail['trigger']) ?? null,
  };
}

async function explain(run: SimulatedRun, overlapping = false) {
  const detail = detailOf(run);
  const user = (detail.trigger?.body as { user?: string } | undefined)?.user;
  const identity = user === undefined ? null : (findIdentity(user) ?? null);
  return explainRun({ detail, state: await state(), overlapping, identity });
}

describe('a run explained', () => {
  it("the guide's workflow up to Validate, a positive alert: stopped after Valid?, where Enrich was expected", async () => {
    const h = await host([guideResponseUpTo('validate')]);
    const e = await explain(await send(h, alert()));
    expect(e).toMatchObject({ kind: 'positive', verdict: 'unmet', unmet: { stage: 'enrich' } });
    expect(e.summary).toBe('stopped after Valid?, where Enrich was expected');
    expect(e.unmet?.mismatch).toMatch(/^GET \/identity\/lab-admin: want 1 request, got 0/);
    expect(e.unmet?.hint).not.toBe('');
    expect(e.stages.map((s) => s.stage)).toEqual(['webhook', 'validate']);
    expect(e.received).toEqual([]);
  });

  it('the whole workflow, approved: every stage as asked, and what the systems received', async () => {
    const h = await whole();
    const run = await send(h, alert());
    const waiting = await explain(run);
    expect(waiting).toMatchObject({ kind: 'approval_pending', verdict: 'waiting', status: 'waiting' });
    expect(waiting.summary).toMatch(/^waiting for the approval at Wait for approval/);
    const e = await explain(await answer('approve', run));
    expect(e).toMatchObject({ kind: 'positive', verdict: 'as-asked', unmet: null, received_certain: true });
    expect(e.received.map((r) => r.request)).toEqual([
      'GET /identity/lab-admin (200)',
      expect.stringMatching(/^GET \/cases\/evt-tutor-\d+ \(404\)$/),
      'POST /notify (202)',
      'POST /blocklist (201)',
      expect.stringMatching(/^GET \/blocklist\/203\.0\.113\.66 \(200\)$/),
      'POST /cases (201)',
    ]);
    expect(e.received.find((r) => r.request.startsWith('POST /blocklist'))?.holds).toBe(
      '203.0.113.66 blocked for 10 min',
    );
    expect(e.stages.map((s) => s.stage)).toEqual([
      'webhook',
      'validate',
      'enrich',
      'case-lookup',
      'decide',
      'approve',
      'block',
      'record',
      'idempotency',
    ]);
  });

  it("with the mock API's clock moved on (the console's Move the clock): the run's requests are still its own", async () => {
    await mock().request('POST', '/control/clock', { advance_minutes: 30 });
    const h = await whole();
    const e = await explain(await answer('approve', await send(h, alert())));
    expect(e).toMatchObject({ kind: 'positive', verdict: 'as-asked' });
    expect(e.received.map((r) => r.request.split(' ')[1])).toContain('/blocklist');
    // The control: the same state judged as if its clock had not moved: only the request naming the event
    // (GET /cases/<event_id>) is still the run's, its block is not.
    const detail = detailOf(h.runs[0] as SimulatedRun);
    const unshifted = explainRun({
      detail,
      state: await state(),
      overlapping: false,
      identity: { user: LAB_USER },
      stateReadAt: Date.now() + 30 * 60_000,
    });
    expect(unshifted.received.map((r) => r.request.split(' ')[1])).not.toContain('/blocklist');
  });

  it('a broken variant (Block for an hour), approved: unmet at Block, with want and got and the node', async () => {
    const h = await whole(REFERENCE_VARIANTS['block-for-an-hour'].reference);
    const e = await explain(await answer('approve', await send(h, alert())));
    expect(e).toMatchObject({ verdict: 'unmet', unmet: { stage: 'block' } });
    expect(e.unmet?.mismatch).toBe('blocklist 203.0.113.66 expires_minutes: want 10, got 60');
    expect(e.summary).toMatch(/^Block: .*: not met$/);
  });

  it('rejected, and the invalid and low-confidence rows: as asked, each its own row', async () => {
    const h = await whole();
    const rejected = await explain(await answer('reject', await send(h, alert())));
    expect(rejected).toMatchObject({ kind: 'approval_rejected', verdict: 'as-asked' });
    const invalid = await explain(await send(h, { ...alert(), source_ip: undefined }));
    expect(invalid).toMatchObject({ kind: 'invalid_input', verdict: 'as-asked' });
    const low = await explain(await send(h, alert({ confidence: 40 })));
    expect(low).toMatchObject({ kind: 'low_confidence', verdict: 'as-asked' });
  });

  it('the same alert twice: the second is a duplicate; the variant that writes a second case fails idempotency', async () => {
    const good = await whole();
    const first = alert();
    await answer('approve', await send(good, first));
    expect(await explain(await send(good, first))).toMatchObject({
      kind: 'duplicate_delivery',
      verdict: 'as-asked',
    });
    const bad = await whole(REFERENCE_VARIANTS['second-case-on-duplicate'].reference);
    const again = alert();
    await mock().request('POST', '/reset', {});
    await answer('approve', await send(bad, again));
    expect(await explain(await send(bad, again))).toMatchObject({
      verdict: 'unmet',
      unmet: { stage: 'idempotency' },
    });
  });

  it('an address an earlier run blocked: the positive run is not judged, and the line says why', async () => {
    const h = await whole();
    await answer('approve', await send(h, alert()));
    const e = await explain(await answer('approve', await send(h, alert())));
    expect(e).toMatchObject({ verdict: 'cannot-tell', unmet: null });
    expect(e.summary).toMatch(
      /^203\.0\.113\.66 was blocked already, by the run of evt-tutor-\d+: Reset the lab/,
    );
  });

  it('never a claim it cannot make: overlapping runs, no alert, a run of the checker', async () => {
    const h = await host([guideResponseUpTo('validate')]);
    const run = await send(h, alert());
    expect(await explain(run, true)).toMatchObject({
      verdict: 'cannot-tell',
      unmet: null,
      received_certain: false,
    });
    expect(await explain(await send(h, 'not json'))).toMatchObject({ kind: 'other', verdict: 'cannot-tell' });
    const checks = await send(h, alert(), 'suspicious-login', { [STIMULUS_HEADER]: 'evt-x' });
    expect(fromChecker(detailOf(checks))).toBe(true);
    expect(fromChecker(detailOf(run))).toBe(false);
  });
});

describe('a run judged only within its own window, as the state holds it', () => {
  const stopHost = async (h: SimulatorHost) => {
    await h.stopRuns();
  };

  it("a waiting run stopped by Reset says so: not a timeout, no stage 'not met', what it received kept", async () => {
    const h = await whole();
    const run = await send(h, alert());
    const waiting = await explain(run);
    expect(waiting).toMatchObject({ verdict: 'waiting', kind: 'approval_pending' });
    // Reset, as the console's and make reset do it: the unfinished runs stopped, then the mock API cleared.
    await stopHost(h);
    await mock().request('POST', '/reset', {});
    expect(run.status).toBe('canceled');
    const detail = detailOf(run);
    const stopped = explainRun({
      detail,
      state: await state(),
      overlapping: false,
      identity: { user: LAB_USER },
      earlier: waiting,
    });
    expect(stopped).toMatchObject({ verdict: 'stopped', unmet: null, kind: 'positive' });
    expect(stopped.summary).toMatch(/^stopped by Reset: the lab was reset while it ran/);
    expect(stopped.received).toEqual(waiting.received);
    expect(stopped.received.map((r) => r.request)).toContain('GET /identity/lab-admin (200)');
    // Without what was read while it waited, nothing is claimed of what it sent.
    const unread = explainRun({
      detail,
      state: await state(),
      overlapping: false,
      identity: { user: LAB_USER },
    });
    expect(unread).toMatchObject({ verdict: 'stopped', received: [], received_certain: false });
  });

  it('a run stopped in the editor, with the state intact, is stopped, not judged, its requests as received', async () => {
    const h = await whole();
    const run = await send(h, alert());
    await stopHost(h);
    const e = await explain(run);
    expect(e).toMatchObject({ verdict: 'stopped', unmet: null, received_certain: true });
    expect(e.summary).toMatch(/^stopped: canceled before it finished/);
    expect(e.received.map((r) => r.request)).toContain('POST /notify (202)');
  });

  it('a run read after a reset or a restart of the mock API is not judged against the emptied systems', async () => {
    const h = await whole();
    const run = await send(h, alert({ confidence: 40 }));
    // Control: read while the state holds it, as asked.
    expect(await explain(run)).toMatchObject({ kind: 'low_confidence', verdict: 'as-asked' });
    await mock().request('POST', '/reset', {});
    const late = await explain(run);
    expect(late).toMatchObject({
      verdict: 'cannot-tell',
      unmet: null,
      received: [],
      received_certain: false,
    });
    expect(late.summary).toMatch(/^the lab's systems were reset or started again after this run began/);
  });

  it("a run read after a later run of its event wrote its records again is not judged by that run's records", async () => {
    const h = await whole();
    const first = alert();
    const run = await answer('approve', await send(h, first));
    // Control: read at its end, as asked.
    expect(await explain(run)).toMatchObject({ kind: 'positive', verdict: 'as-asked' });
    await sleep(1100);
    await send(h, first);
    const late = await explain(run);
    expect(late).toMatchObject({ verdict: 'cannot-tell', unmet: null, received_certain: false });
    expect(late.summary).toMatch(/^a later run of the same event wrote its records again/);
  });

  it('an alert of any size is kept cut to a size a page holds; a small one whole', async () => {
    const h = await host([guideResponseUpTo('validate')]);
    const small = alert();
    expect((await explain(await send(h, small))).alert).toEqual(small);
    const big = alert({ notes: 'x'.repeat(1 << 20) });
    const e = await explain(await send(h, big));
    const shown = JSON.stringify(e.alert);
    expect(shown.length).toBeLessThan(ALERT_SHOWN_BYTES + 1024);
    expect(e.alert).toMatchObject({ event_id: big.event_id, user: LAB_USER });
    expect(String(e.alert?.notes)).toMatch(/^x{200}… \(1048576 characters\)$/);
  });
});

describe('a run that waits for its approval is not busy while it waits', () => {
  it('runs made while it waited are not its own: approved after them, it is as asked; its window alone would take theirs', async () => {
    const h = await whole();
    const run = await send(h, alert());
    expect(run.status).toBe('waiting');
    // Three other alerts, each run to its end while the first waits.
    for (let i = 0; i < 3; i++) expect((await send(h, alert({ confidence: 40 }))).status).toBe('success');
    await answer('approve', run);
    const detail = detailOf(run);
    expect(detail.view.busy).toHaveLength(2);
    const e = explainRun({ detail, state: await state(), overlapping: false, identity: { user: LAB_USER } });
    expect(e).toMatchObject({ kind: 'positive', verdict: 'as-asked' });
    expect(e.received.filter((r) => r.request.startsWith('GET /identity/'))).toHaveLength(1);
    // Control: the same run judged by its whole window takes the other runs' requests for its own.
    const windowed = { ...detail, view: { ...detail.view, busy: undefined } };
    const whole_ = explainRun({
      detail: windowed,
      state: await state(),
      overlapping: false,
      identity: { user: LAB_USER },
    });
    expect(whole_.received.filter((r) => r.request.startsWith('GET /identity/'))).toHaveLength(4);
    expect(whole_.verdict).not.toBe('as-asked');
  });
});
