/**
 * stopUnfinishedRuns against a stand-in of n8n's public API over real HTTP: it stops with the key, lists
 * until none is left, and fails loudly (never silently "done") when n8n refuses or runs stay. The
 * console's Reset stops the runs first and clears nothing when that fails.
 */
import { describe, expect, it } from 'vitest';
import { createApp, defaultDeps } from '../../app/api/app.js';
import { createConsoleApp } from '../../app/console/app.js';
import type { MockApiClient } from '../../app/mock-api-client/client.js';
import { StopRunsError, stopUnfinishedRuns } from '../../app/n8n/stop-runs.js';
import { HOST, standInDeps } from '../console/stand-in-deps.js';
import { send, standIn } from './stand-in.js';

const KEY = 'lab-key';

/** n8n's executions API with `runs` unfinished runs; a stop call stops `perStop` of them at most. */
async function fakeN8n(opts: { runs: number; perStop?: number; refuse?: number }) {
  let left = opts.runs;
  const calls: string[] = [];
  const { url } = await standIn((call, res) => {
    calls.push(`${call.method} ${call.url} ${call.text}`);
    if (call.headers['x-n8n-api-key'] !== KEY) return send(res, 401, { message: 'unauthorized' });
    if (opts.refuse) return send(res, opts.refuse, { message: 'no' });
    if (call.method === 'POST' && call.url === '/api/v1/executions/stop') {
      const n = Math.min(left, opts.perStop ?? left);
      left -= n;
      return send(res, 200, { stopped: n });
    }
    if (call.method === 'GET' && call.url.startsWith('/api/v1/executions?')) {
      const waiting = call.url.includes('status=waiting') && left > 0;
      return send(res, 200, { data: waiting ? [{ id: '1' }] : [], nextCursor: null });
    }
    return send(res, 404, {});
  });
  return { url, calls, left: () => left };
}

describe('stopUnfinishedRuns', () => {
  it('stops every waiting, running and queued run with the key, then finds none left', async () => {
    const n8n = await fakeN8n({ runs: 2 });
    expect(await stopUnfinishedRuns({ n8nUrl: n8n.url, apiKey: KEY })).toBe(2);
    expect(n8n.calls[0]).toBe('POST /api/v1/executions/stop {"status":["queued","running","waiting"]}');
    expect(n8n.calls.slice(1).map((c) => c.split(' ')[1])).toEqual([
      '/api/v1/executions?limit=1&status=new',
      '/api/v1/executions?limit=1&status=running',
      '/api/v1/executions?limit=1&status=waiting',
    ]);
  });

  it('keeps stopping while runs are still listed (a run that was starting when it first asked)', async () => {
    const n8n = await fakeN8n({ runs: 3, perStop: 1 });
    expect(await stopUnfinishedRuns({ n8nUrl: n8n.url, apiKey: KEY })).toBe(3);
    expect(n8n.left()).toBe(0);
  });

  it('fails when n8n refuses the key', async () => {
    const n8n = await fakeN8n({ runs: 1 });
    await expect(stopUnfinishedRuns({ n8nUrl: n8n.url, apiKey: 'wrong' })).rejects.toThrow(
      /n8n answered 401 to stopping the runs/,
    );
  });

  it('fails when runs are still unfinished at its deadline', async () => {
    const n8n = await fakeN8n({ runs: 100, perStop: 0 });
    await expect(stopUnfinishedRuns({ n8nUrl: n8n.url, apiKey: KEY, timeoutMs: 300 })).rejects.toThrow(
      StopRunsError,
    );
  });
});

describe("the console's Reset", () => {
  function consoleWith(stopRuns: (() => Promise<number>) | undefined, calls: string[]) {
    const mockApi = createApp(defaultDeps());
    const api: MockApiClient = {
      describe: 'in-process',
      async request(method, path, payload) {
        calls.push(`${method} ${path}`);
        const res = await mockApi.request(path, {
          method,
          headers: { 'content-type': 'application/json', host: '127.0.0.1' },
          ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
        });
        const text = await res.text();
        return { status: res.status, body: JSON.parse(text), text, etag: undefined };
      },
      close() {},
    };
    return createConsoleApp(
      standInDeps({
        api,
        n8nPublicUrl: 'http://127.0.0.1:5678',
        token: 't',
        ...(stopRuns ? { stopRuns } : {}),
      }),
    );
  }
  const reset = (app: ReturnType<typeof createConsoleApp>) =>
    app.request('/api/reset', {
      method: 'POST',
      headers: {
        host: HOST,
        origin: `http://${HOST}`,
        'content-type': 'application/json',
        'x-console-token': 't',
      },
      body: JSON.stringify({ confirm: true }),
    });

  it('stops the unfinished runs before it clears the mock API', async () => {
    const calls: string[] = [];
    const app = consoleWith(async () => {
      calls.push('stop runs');
      return 1;
    }, calls);
    const res = await reset(app);
    expect(res.status).toBe(200);
    expect(calls.filter((c) => c === 'stop runs' || c === 'POST /reset')).toEqual([
      'stop runs',
      'POST /reset',
    ]);
  });

  it('clears nothing, and says so, when the runs cannot be stopped', async () => {
    const calls: string[] = [];
    const app = consoleWith(async () => {
      throw new StopRunsError('n8n answered 401 to stopping the runs');
    }, calls);
    const res = await reset(app);
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({
      ok: false,
      message: expect.stringMatching(/nothing was reset/),
    });
    expect(calls).not.toContain('POST /reset');
  });
});
