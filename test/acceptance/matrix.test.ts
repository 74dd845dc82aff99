/**
 * The whole matrix on the reference workflow, over real HTTP on loopback: the mock API and the workflow
 * host each on a random port, driven exactly as n8n would be.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAcceptance } from '../../app/acceptance/run-acceptance.js';
import { runCase, runMatrix } from '../../app/acceptance/runner.js';
import { CASE_NAMES } from '../../app/acceptance/verdict.js';
import { mockApiClient } from '../../app/mock-api-client/client.js';
import { type LocalMockApi, startLocalMockApi } from '../../app/mock-api-client/local-mock-api.js';
import { REFERENCE_TIMING, startReferenceTarget, type Target } from '../../app/targets/targets.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'acceptance-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('acceptance runner, --target reference', () => {
  it('passes every case of the matrix and writes the report', async () => {
    const reportPath = join(dir, 'reports', 'acceptance-reference.json');
    const out: string[] = [];
    const report = await runAcceptance(
      {
        target: 'reference',
        api: { kind: 'local' },
        n8nUrl: 'http://127.0.0.1:5678',
        resumeOrigin: undefined,
        reportPath,
        cases: [...CASE_NAMES],
        approvalTimeoutSeconds: 1.5,
        verbose: false,
      },
      { out: (line) => out.push(line), err: () => {} },
    );

    const failed = report.cases.filter((c) => c.verdict === 'fail');
    expect(failed, JSON.stringify(failed, null, 2)).toEqual([]);
    expect(report.cases.map((c) => c.case)).toEqual([...CASE_NAMES]);
    expect(report).toMatchObject({ target: 'reference', passed: true, counts: { pass: 8, fail: 0 } });
    expect(JSON.parse(await readFile(reportPath, 'utf8'))).toEqual(report);

    const table = out.join('\n');
    for (const name of CASE_NAMES) expect(table).toMatch(new RegExp(`^${name} .* PASS +\\d+\\.\\d\\d$`, 'm'));
  }, 30_000);
});

describe('the same runner through the exec transport and a rewritten resume origin', () => {
  let api: LocalMockApi;
  let target: Target;
  beforeAll(async () => {
    api = await startLocalMockApi();
    target = await startReferenceTarget({ mockApiUrl: api.url, approvalTimeoutSeconds: 5 });
  });
  afterAll(async () => {
    await target.close();
    await api.close();
  });

  it('judges positive and connector_failure from state read by a command, approving via localhost', async () => {
    const exec = mockApiClient({
      kind: 'exec',
      prefix: `API_URL=${api.url} node test/acceptance/fixtures/api-envelope.mjs`,
    });
    const results = await runMatrix(['positive', 'connector_failure'], {
      api: exec,
      workflowUrl: target.workflowUrl,
      approvalTimeoutSeconds: target.approvalTimeoutSeconds,
      // The host announces 127.0.0.1; the approver reaches it as localhost, as the lab reaches n8n by name.
      resumeOrigin: target.workflowUrl.replace('127.0.0.1', 'localhost'),
      timing: REFERENCE_TIMING,
    });
    expect(results.map((r) => [r.case, r.verdict, r.notes])).toEqual([
      ['positive', 'pass', []],
      ['connector_failure', 'pass', []],
    ]);
  }, 30_000);
});

describe('what the runner refuses to pass', () => {
  let api: LocalMockApi;
  beforeAll(async () => {
    api = await startLocalMockApi();
  });
  afterAll(async () => {
    await api.close();
  });

  /** A workflow that records the validation error, then still enriches a moment later. */
  async function startSloppyWorkflow(delayMs: number) {
    const mock = mockApiClient({ kind: 'http', url: api.url });
    const pending: Promise<unknown>[] = [];
    const app = new Hono().post('/webhook/suspicious-login', async (c) => {
      const alert = await c.req.json();
      await mock.request('POST', '/notify', {
        channel: 'validation',
        message: 'source_ip is required',
        event_id: alert.event_id,
        errors: ['source_ip is required'],
      });
      pending.push(
        new Promise((resolve) => setTimeout(resolve, delayMs)).then(() =>
          mock.request('GET', '/identity/lab-admin'),
        ),
      );
      return c.json({ message: 'Workflow was started' });
    });
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const started = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(started));
    });
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    return {
      url: `http://127.0.0.1:${port}`,
      close: async () => {
        await Promise.all(pending);
        await new Promise((resolve) => server.close(resolve));
      },
    };
  }

  it('fails invalid_input when an identity request follows the validation error', async () => {
    const sloppy = await startSloppyWorkflow(50);
    try {
      const result = await runCase('invalid_input', {
        api: mockApiClient({ kind: 'http', url: api.url }),
        workflowUrl: sloppy.url,
        approvalTimeoutSeconds: 1,
        // The verdict never passes, so the case runs to its deadline: keep that short.
        timing: { ...REFERENCE_TIMING, phaseTimeoutMs: 1_500 },
      });
      expect(result.verdict).toBe('fail');
      expect(result.checks.filter((c) => !c.pass).map((c) => c.check)).toEqual([
        '0 /identity requests in the journal',
      ]);
    } finally {
      await sloppy.close();
    }
  });

  it('fails a case when the workflow trigger is unreachable, without hanging', async () => {
    const result = await runCase('positive', {
      api: mockApiClient({ kind: 'http', url: api.url }),
      workflowUrl: 'http://127.0.0.1:9',
      approvalTimeoutSeconds: 1,
      timing: { ...REFERENCE_TIMING, phaseTimeoutMs: 1_000 },
    });
    expect(result.verdict).toBe('fail');
    expect(result.observed).toMatch(/runner error/);
  });
});
