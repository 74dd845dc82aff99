/** The reference workflow's host and nodes, against a real mock API on loopback. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mockApiClient } from '../../app/mock-api-client/client.js';
import { type LocalMockApi, startLocalMockApi } from '../../app/mock-api-client/local-mock-api.js';
import { StateReadingSchema } from '../../app/mock-api-client/readings.js';
import { startWorkflowHost, type WorkflowHost } from '../../app/targets/workflow-host.js';
import { belowThresholdOutcome, validateAlert as validate } from '../../app/workflow/decisions.js';
import { alertPayload, LAB_ADDRESS, LAB_USER } from '../../app/workflow/scenario.js';

const FACTS = { eventId: 'evt-host-1', sourceIp: LAB_ADDRESS, user: LAB_USER, approver: 'tester' };

describe('Validate', () => {
  it('accepts the lab alert and keeps failed_attempts as evidence', () => {
    const result = validate(alertPayload(FACTS, { confidence: 92 }));
    expect(result).toEqual({
      valid: true,
      errors: [],
      event_id: 'evt-host-1',
      alert: expect.objectContaining({ event_id: 'evt-host-1', user: LAB_USER }),
      failed_attempts: 7,
    });
  });

  it('names each missing or wrong field', () => {
    const { source_ip: _dropped, ...alert } = alertPayload(FACTS, { confidence: 92 });
    expect(validate(alert)).toMatchObject({
      valid: false,
      errors: ['source_ip is required'],
      event_id: 'evt-host-1',
    });
    expect(
      validate({ ...alert, source_ip: 'not-an-ip', environment: 'production', confidence: 92.5 }),
    ).toMatchObject({
      valid: false,
      errors: [
        'source_ip must be an IP address',
        'confidence must be an integer from 0 to 100',
        'environment must be "training"',
      ],
      event_id: 'evt-host-1',
    });
    expect(validate([1])).toMatchObject({
      valid: false,
      errors: ['the alert must be a JSON object'],
      event_id: null,
    });
  });
});

describe('workflow host', () => {
  let api: LocalMockApi;
  let host: WorkflowHost;
  const mock = () => mockApiClient({ kind: 'http', url: api.url });
  const state = async () => StateReadingSchema.parse((await mock().request('GET', '/state')).body);
  const post = (url: string, body: unknown) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  async function approvalRequest(): Promise<string> {
    for (let i = 0; i < 200; i += 1) {
      const url = (await state()).notifications.find((n) => n.channel === 'approval')?.resume_url;
      if (url !== undefined) return url;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('no approval request');
  }

  beforeAll(async () => {
    api = await startLocalMockApi();
    host = await startWorkflowHost({ mockApiUrl: api.url, settings: { approvalTimeoutMs: 10_000 } });
  });
  afterEach(async () => {
    await host.cancelRuns();
    await mock().request('POST', '/reset', {});
  });
  afterAll(async () => {
    await host.close();
    await api.close();
  });

  it('answers the webhook at once while the run waits for approval', async () => {
    const answer = await post(
      `${host.url}/webhook/suspicious-login`,
      alertPayload(FACTS, { confidence: 92 }),
    );
    expect(answer.status).toBe(200);
    const resumeUrl = await approvalRequest();
    expect(resumeUrl).toMatch(
      new RegExp(`^${host.url}/webhook-waiting/[0-9a-f-]+\\?signature=[0-9a-f]{64}$`),
    );
    expect(host.runs.at(-1)?.status).toBe('running');
  });

  it('refuses a resume without the right signature and keeps waiting; resumes once', async () => {
    await post(`${host.url}/webhook/suspicious-login`, alertPayload(FACTS, { confidence: 92 }));
    const resumeUrl = await approvalRequest();
    const url = new URL(resumeUrl);
    const tampered = new URL(resumeUrl);
    tampered.searchParams.set('signature', '0'.repeat(64));
    const unsigned = `${url.origin}${url.pathname}`;
    const decision = { decision: 'approve', approver: 'tester' };

    expect((await post(tampered.toString(), decision)).status).toBe(401);
    expect((await post(unsigned, decision)).status).toBe(401);
    expect(host.runs.at(-1)?.status).toBe('running');
    expect((await post(resumeUrl, decision)).status).toBe(200);
    expect((await post(resumeUrl, decision)).status).toBe(404);

    for (let i = 0; i < 200 && host.runs.at(-1)?.status === 'running'; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(host.runs.at(-1)).toMatchObject({ status: 'success', error: null });
    expect((await state()).cases).toEqual([
      expect.objectContaining({ final_action: 'blocked', approver: 'tester' }),
    ]);
  });

  it('cancels a waiting run without writing anything more', async () => {
    await post(`${host.url}/webhook/suspicious-login`, alertPayload(FACTS, { confidence: 92 }));
    await approvalRequest();
    await host.cancelRuns();
    expect(host.runs.at(-1)?.status).toBe('cancelled');
    const after = await state();
    expect(after.cases).toEqual([]);
    expect(after.journal.filter((j) => j.path === '/blocklist')).toEqual([]);
  });

  it('stops a rollback of an unknown event after one lookup', async () => {
    await post(`${host.url}/webhook/suspicious-login-rollback`, { event_id: 'evt-none' });
    for (let i = 0; i < 200 && host.runs.at(-1)?.status === 'running'; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(host.runs.at(-1)).toMatchObject({ status: 'stopped' });
    const requests = (await state()).journal.map((j) => `${j.method} ${j.path} ${j.status}`);
    expect(requests.filter((r) => !r.startsWith('POST /reset'))).toEqual(['GET /cases/evt-none 404']);
  });
});

describe('a workflow variant on the host', () => {
  it('replaces one node function: a decide that never asks records below_threshold at 92', async () => {
    const api = await startLocalMockApi();
    const host = await startWorkflowHost({
      mockApiUrl: api.url,
      variant: {
        response: { decide: async () => ({ kind: 'record', outcome: belowThresholdOutcome() }) },
      },
    });
    try {
      await fetch(`${host.url}/webhook/suspicious-login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(alertPayload(FACTS, { confidence: 92 })),
      });
      for (let i = 0; i < 200 && host.runs.at(-1)?.status !== 'success'; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const state = StateReadingSchema.parse(
        (await mockApiClient({ kind: 'http', url: api.url }).request('GET', '/state')).body,
      );
      expect(state.cases).toEqual([expect.objectContaining({ confidence: 92, result: 'below_threshold' })]);
      expect(state.notifications.filter((n) => n.channel === 'approval')).toEqual([]);
    } finally {
      await host.close();
      await api.close();
    }
  });
});
