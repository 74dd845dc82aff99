/**
 * The tutor's view of n8n's runs (app/n8n/run-feed.ts) against a stand-in of n8n 2.41.1's public API on
 * loopback (real HTTP, its X-N8N-API-KEY header, its list that leaves running executions out unless asked
 * with status=running): the newest runs without their data, running and waiting ones included, once each;
 * one run with its data as a RunDetail (its nodes in run order, the editor's address, the workflow's name,
 * the Webhook node's item, how it started); a run that is gone is null; a refused key and a silent n8n throw.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_RUN_BYTES, n8nRunFeed } from '../../app/n8n/run-feed.js';
import { RunTooLargeError } from '../../app/runs/run.js';
import { type Call, type StandIn, send, standIn } from './stand-in.js';

const head = (id: string, status: string, startedAt: string, mode = 'webhook') => ({
  id,
  finished: status === 'success',
  mode,
  startedAt,
  stoppedAt: status === 'running' ? null : startedAt.replace('.000Z', '.900Z'),
  workflowId: 'WF1',
  status,
});
const ENDED = [
  head('41', 'error', '2026-11-26T10:00:41.000Z', 'manual'),
  head('40', 'success', '2026-11-26T10:00:40.000Z'),
];
// n8n 2.41.1's unfiltered list holds waiting runs too: the waiting one below is listed twice. Run 7 waits
// since long before the newest runs: the unfiltered list of the newest leaves it out.
const WAITING = [
  head('42', 'waiting', '2026-11-26T10:00:42.000Z'),
  head('7', 'waiting', '2026-11-26T09:00:07.000Z'),
];
const RUNNING = [head('43', 'running', '2026-11-26T10:00:43.000Z')];

const alert = { event_id: 'evt-1', user: 'lab-admin', source_ip: '203.0.113.7', confidence: 92 };
const detail41 = {
  ...ENDED[0],
  workflowData: {
    name: 'Suspicious Login Response',
    nodes: [
      {
        id: 'n-hook',
        name: 'Webhook',
        type: 'n8n-nodes-base.webhook',
        parameters: { path: 'suspicious-login' },
      },
      {
        id: 'n-who',
        name: 'Enrich',
        type: 'n8n-nodes-base.httpRequest',
        parameters: { url: '={{ $json.api }}/identity/x' },
      },
    ],
  },
  data: {
    resultData: {
      lastNodeExecuted: 'Enrich',
      runData: {
        // Out of order on purpose: the order is the run's.
        Enrich: [{ startTime: 2, executionIndex: 1, error: { message: 'ECONNREFUSED' }, data: null }],
        Webhook: [
          {
            startTime: 1,
            executionIndex: 0,
            data: {
              main: [[{ json: { headers: { host: 'n8n' }, body: alert } }, { json: { second: true } }]],
            },
          },
        ],
      },
    },
  },
};

let n8n: StandIn;
let down: StandIn;
const listCalls = (calls: Call[]) => calls.filter((c) => c.url.startsWith('/api/v1/executions?'));

beforeAll(async () => {
  n8n = await standIn((call, res) => {
    if (call.headers['x-n8n-api-key'] !== 'good-key') return send(res, 401, { message: 'unauthorized' });
    const url = new URL(call.url, 'http://n8n');
    if (url.pathname === '/api/v1/executions') {
      const status = url.searchParams.get('status');
      const data = status === 'running' ? RUNNING : status === 'waiting' ? WAITING : [WAITING[0], ...ENDED];
      return send(res, 200, { data: data.slice(0, Number(url.searchParams.get('limit'))), nextCursor: null });
    }
    if (url.pathname === '/api/v1/executions/41' && url.searchParams.get('includeData') === 'true')
      return send(res, 200, detail41);
    // A run of 9 MiB: said in its length (908), or streamed without one (909).
    if (url.pathname === '/api/v1/executions/908')
      return send(res, 200, { ...detail41, pad: 'x'.repeat(9 << 20) });
    if (url.pathname === '/api/v1/executions/909') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"pad":"');
      for (let i = 0; i < 9; i++) res.write('x'.repeat(1 << 20));
      return res.end('"}');
    }
    // Control: a run just under the cap is read.
    if (url.pathname === '/api/v1/executions/907')
      return send(res, 200, { ...detail41, pad: 'x'.repeat(MAX_RUN_BYTES - 8192) });
    return send(res, 404, { message: 'Not Found' });
  }, 'file');
  down = await standIn((_, res) => send(res, 503, { message: 'n8n is starting' }), 'file');
});

const feed = (apiKey = 'good-key', url = n8n.url) =>
  n8nRunFeed({ n8nUrl: url, apiKey, editorUrl: 'http://127.0.0.1:5678/' });

describe("the tutor's n8n runs", () => {
  it('lists the newest runs once each, running and waiting ones included, without their data', async () => {
    n8n.calls.length = 0;
    const recent = await feed().recent(20);
    expect(recent.map((r) => [r.id, r.status])).toEqual([
      ['43', 'running'],
      ['42', 'waiting'],
      ['41', 'error'],
      ['40', 'success'],
      ['7', 'waiting'],
    ]);
    expect(recent[2]).toEqual({
      id: '41',
      status: 'error',
      startedAt: '2026-11-26T10:00:41.000Z',
      stoppedAt: '2026-11-26T10:00:41.900Z',
      workflowId: 'WF1',
      mode: 'manual',
      url: 'http://127.0.0.1:5678/workflow/WF1/executions/41',
    });
    const asked = listCalls(n8n.calls).map((c) => new URL(c.url, 'http://n8n').searchParams);
    expect(asked.map((q) => q.get('status')).sort()).toEqual([null, 'running', 'waiting'].sort());
    // The newest 20; every running or waiting run, however old (up to 100 of each).
    expect(asked.every((q) => q.get('includeData') === 'false')).toBe(true);
    expect(asked.map((q) => [q.get('status'), q.get('limit')]).sort()).toEqual(
      [
        [null, '20'],
        ['running', '100'],
        ['waiting', '100'],
      ].sort(),
    );
    // The limit holds over the ended runs; a waiting run behind newer ones is kept.
    expect((await feed().recent(2)).map((r) => r.id)).toEqual(['43', '42', '7']);
    expect((await feed().recent(3)).map((r) => r.id)).toEqual(['43', '42', '41', '7']);
  });

  it("gives one run with its data: nodes in run order, the editor's address, the workflow, the Webhook's item", async () => {
    const detail = await feed().detail('41');
    expect(detail).toEqual({
      head: {
        id: '41',
        status: 'error',
        startedAt: '2026-11-26T10:00:41.000Z',
        stoppedAt: '2026-11-26T10:00:41.900Z',
        workflowId: 'WF1',
        mode: 'manual',
        url: 'http://127.0.0.1:5678/workflow/WF1/executions/41',
      },
      view: {
        id: '41',
        url: 'http://127.0.0.1:5678/workflow/WF1/executions/41',
        status: 'error',
        lastNode: 'Enrich',
        busy: [[1, 2]],
        nodes: [
          {
            id: 'n-hook',
            name: 'Webhook',
            type: 'n8n-nodes-base.webhook',
            error: null,
            output: [{ headers: { host: 'n8n' }, body: alert }, { second: true }],
            url: null,
          },
          {
            id: 'n-who',
            name: 'Enrich',
            type: 'n8n-nodes-base.httpRequest',
            error: 'ECONNREFUSED',
            output: [],
            url: '={{ $json.api }}/identity/x',
          },
        ],
      },
      workflow: 'Suspicious Login Response',
      trigger: { headers: { host: 'n8n' }, body: alert },
    });
    const asked = n8n.calls.filter((c) => c.url.startsWith('/api/v1/executions/41'));
    expect(asked.at(-1)?.url).toBe('/api/v1/executions/41?includeData=true');
  });

  it("a run's busy times from its nodes' times: none while it waits, again from its resume (n8n 2.41.1's shapes)", async () => {
    // As the pinned n8n gave them for the guide's workflow (ms from the alert): the Wait node's entry while it
    // waits, replaced by a new one at the resume, the nodes after it counted from 0 again.
    const entry = (startTime: number, executionTime: number, executionIndex: number) => ({
      startTime: T + startTime,
      executionTime,
      executionIndex,
      data: { main: [[{ json: {} }]] },
    });
    const T = Date.parse('2026-11-29T00:37:42.368Z');
    const before = {
      Webhook: [entry(187, 1, 0)],
      Validate: [entry(189, 113, 1)],
      'Request approval': [entry(587, 67, 10)],
    };
    const waiting = { ...before, 'Wait for approval': [entry(654, 19, 11)] };
    const resumed = { ...before, 'Wait for approval': [entry(4212, 0, 0)], Record: [entry(4304, 29, 7)] };
    const busyOf = async (runData: unknown, status: string) => {
      const at = await standIn((_, res) =>
        send(res, 200, { ...detail41, status, data: { resultData: { lastNodeExecuted: 'x', runData } } }),
      );
      return (await feed('good-key', at.url).detail('41'))?.view.busy;
    };
    expect(await busyOf(waiting, 'waiting')).toEqual([[T + 187, T + 673]]);
    expect(await busyOf(resumed, 'success')).toEqual([
      [T + 187, T + 654],
      [T + 4212, T + 4333],
    ]);
  });

  it('reads no run past MAX_RUN_BYTES, whether n8n says its length or streams it; one under it is read', async () => {
    for (const id of ['908', '909']) {
      const error = await feed()
        .detail(id)
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(error, id).toBeInstanceOf(RunTooLargeError);
      expect((error as RunTooLargeError).limit).toBe(MAX_RUN_BYTES);
    }
    expect((await feed().detail('907'))?.head.id).toBe('41');
  });

  it('a run that is gone is null; a refused key and an n8n that does not answer throw, saying which', async () => {
    expect(await feed().detail('99')).toBeNull();
    await expect(feed('bad-key').recent(20)).rejects.toThrow(
      /n8n answered 401 to GET \/api\/v1\/executions: unauthorized/,
    );
    await expect(feed('good-key', down.url).recent(20)).rejects.toThrow(/503/);
    await expect(feed('good-key', 'http://127.0.0.1:9').detail('41')).rejects.toThrow(
      /n8n unreachable at http:\/\/127\.0\.0\.1:9/,
    );
    // The key never leaves in a message.
    const refused: unknown = await feed('bad-key')
      .recent(20)
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Error);
    expect(String(refused)).not.toContain('bad-key');
  });
});
