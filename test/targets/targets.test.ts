/**
 * The workflow targets (app/targets/targets.ts) and the session both tools open (app/targets/session.ts),
 * over real HTTP on loopback: the reference target serves the guide's workflows behind n8n's URLs and runs
 * them against the mock API it is given, with the approval limit it is given and a variant's nodes when
 * one is given; its runs are found as n8n's executions are; closing it stops it listening. n8n's target
 * only names the n8n. A session opens the mock API and the target, and closes both (a failed start too).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_VARIANTS } from '../../app/check/variants.js';
import { mockApiClient } from '../../app/mock-api-client/client.js';
import { type LocalMockApi, startLocalMockApi } from '../../app/mock-api-client/local-mock-api.js';
import { STIMULUS_HEADER } from '../../app/runs/run.js';
import { openSession, SetupError } from '../../app/targets/session.js';
import {
  N8N_APPROVAL_TIMEOUT_SECONDS,
  N8N_TIMING,
  n8nTarget,
  REFERENCE_TIMING,
  startReferenceTarget,
  type Target,
} from '../../app/targets/targets.js';
import { RESPONSE_WEBHOOK_PATH } from '../../app/workflow/constants.js';

let api: LocalMockApi;
beforeAll(async () => {
  api = await startLocalMockApi();
});
afterAll(async () => {
  await api.close();
});

const quiet = { out: () => {}, err: () => {} };
const client = () => mockApiClient({ kind: 'http', url: api.url });

/** A valid alert below the approval threshold: the run ends without waiting for anyone. */
const alert = (eventId: string) => ({
  event_id: eventId,
  event_type: 'suspicious_login',
  user: 'lab-admin',
  source_ip: '203.0.113.10',
  failed_attempts: 7,
  successful_login: true,
  confidence: 50,
  environment: 'training',
});

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** Whether anything answers at `url` (a refused connection: false). */
async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return true;
  } catch {
    return false;
  }
}

async function until<T>(read: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error('not within the time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('the reference target', () => {
  it('serves the guide’s workflow at n8n’s URL; the run calls the mock API it was given and is found as an execution', async () => {
    await client().request('POST', '/reset', {});
    const target = await startReferenceTarget({ mockApiUrl: api.url, approvalTimeoutSeconds: 7 });
    try {
      expect(target).toMatchObject({
        name: 'reference',
        approvalTimeoutSeconds: 7,
        timing: REFERENCE_TIMING,
      });
      expect(target.workflowUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const sentAt = new Date();
      const answer = await post(
        `${target.workflowUrl}/webhook/${RESPONSE_WEBHOOK_PATH}`,
        alert('evt-targets-1'),
        {
          [STIMULUS_HEADER]: 'evt-targets-1',
        },
      );
      expect(answer.status).toBe(200);
      // The run's requests reach this mock API: its journal holds the identity look-up of the alert's user.
      const journal = await until(async () => {
        const state = (await client().request('GET', '/state')).body as { journal: { path: string }[] };
        return state.journal.some((j) => j.path === '/identity/lab-admin') ? state.journal : undefined;
      });
      expect(journal.map((j) => j.path)).toContain('/identity/lab-admin');
      const runs = target.runs;
      if (runs === undefined) throw new Error('the reference target has no runs');
      const found = await until(async () => {
        const lookup = await runs.find({
          eventId: 'evt-targets-1',
          path: RESPONSE_WEBHOOK_PATH,
          sentAt,
          exclude: [],
        });
        return lookup.kind === 'found' && lookup.run.status === 'success' ? lookup.run : undefined;
      });
      expect(found.nodes.map((n) => n.name)).toContain('Enrich');
      // The control: a stimulus never sent is not found.
      expect(
        (await runs.find({ eventId: 'evt-never-sent', path: RESPONSE_WEBHOOK_PATH, sentAt, exclude: [] }))
          .kind,
      ).toBe('none');
    } finally {
      await target.close();
    }
    // Closed: nothing listens at its URL any more.
    expect(await answers(`${target.workflowUrl}/webhook/${RESPONSE_WEBHOOK_PATH}`)).toBe(false);
  }, 30_000);

  it('runs a variant’s nodes: the Webhook on another path answers there, and the guide’s path is 404', async () => {
    const target = await startReferenceTarget({
      mockApiUrl: api.url,
      approvalTimeoutSeconds: 1,
      variant: REFERENCE_VARIANTS['webhook-path-typo'].reference,
    });
    try {
      const guidePath = await post(
        `${target.workflowUrl}/webhook/${RESPONSE_WEBHOOK_PATH}`,
        alert('evt-targets-2'),
      );
      expect(guidePath.status).toBe(404);
      const typo = await post(
        `${target.workflowUrl}/webhook/${RESPONSE_WEBHOOK_PATH}s`,
        alert('evt-targets-3'),
      );
      expect(typo.status).toBe(200);
    } finally {
      await target.close();
    }
  });

  it('n8n’s target names the n8n and its patience, and starts nothing', async () => {
    const target: Target = n8nTarget({ n8nUrl: 'http://127.0.0.1:5678', approvalTimeoutSeconds: 20 });
    expect(target).toMatchObject({
      name: 'n8n',
      workflowUrl: 'http://127.0.0.1:5678',
      approvalTimeoutSeconds: 20,
      timing: N8N_TIMING,
    });
    expect(target.runs).toBeUndefined();
    expect(N8N_TIMING).not.toEqual(REFERENCE_TIMING);
    expect(N8N_APPROVAL_TIMEOUT_SECONDS).toBeGreaterThan(0);
    await target.close();
  });
});

describe('a session', () => {
  const options = { n8nUrl: 'http://127.0.0.1:5678', approvalTimeoutSeconds: 1, verbose: false };

  it('reference with no --api: an in-process mock API and the reference target, both closed by close()', async () => {
    const session = await openSession({ ...options, api: { kind: 'local' }, target: 'reference' }, quiet);
    const health = await session.api.request('GET', '/health');
    expect(health.status).toBe(200);
    const { workflowUrl } = session.target;
    expect((await post(`${workflowUrl}/webhook/nothing-here`, {})).status).toBe(404);
    const apiUrl = session.api.describe;
    await session.close();
    expect(await answers(workflowUrl)).toBe(false);
    expect(apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await answers(`${apiUrl}/health`)).toBe(false);
  }, 30_000);

  it('reference over a socket is a setup error, and what it opened is closed', async () => {
    await expect(
      openSession(
        { ...options, api: { kind: 'socket', path: '/nonexistent.sock' }, target: 'reference' },
        quiet,
      ),
    ).rejects.toThrow(SetupError);
  });

  it('a target that fails to start closes the in-process mock API it opened', async () => {
    let url = '';
    await expect(
      openSession({ ...options, api: { kind: 'local' }, target: 'reference' }, quiet, async (o) => {
        url = o.mockApiUrl;
        throw new Error('no target');
      }),
    ).rejects.toThrow('no target');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
    expect(await answers(`${url}/health`)).toBe(false);
  });

  it('n8n: the mock API by URL, n8n’s target at the URL given', async () => {
    const session = await openSession(
      { ...options, api: { kind: 'http', url: api.url }, target: 'n8n' },
      quiet,
    );
    expect(session.target).toMatchObject({ name: 'n8n', workflowUrl: 'http://127.0.0.1:5678' });
    expect((await session.api.request('GET', '/health')).status).toBe(200);
    await session.close();
    // The session closes its client, not a mock API it did not start.
    expect(await answers(`${api.url}/health`)).toBe(true);
  });
});
