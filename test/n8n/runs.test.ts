/**
 * The checker's run look-up (app/n8n/runs.ts) against a stand-in of n8n 2.41.1's public API on loopback
 * (real HTTP, its X-N8N-API-KEY header, its lists that leave running executions out unless asked with
 * status=running): the run of a stimulus is found by the event_id in its data, in the workflow that
 * listens on the path, started after the stimulus; its nodes come in the order they ran.
 */
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { n8nRunSource } from '../../app/n8n/runs.js';
import { type Served, serveOnLoopback } from '../helpers/loopback-http.js';

const SENT_AT = new Date('2026-11-26T10:00:00.000Z');
const webhookNode = {
  id: 'node-1',
  name: 'Alert in',
  type: 'n8n-nodes-base.webhook',
  parameters: { path: 'suspicious-login' },
};
const workflowData = {
  nodes: [
    webhookNode,
    {
      id: 'node-2',
      name: 'Who',
      type: 'n8n-nodes-base.httpRequest',
      parameters: { url: '={{ $json.api }}/identity/x' },
    },
  ],
};
const runData = (event: string) => ({
  // Listed out of order on purpose: the order is the run's (executionIndex), not the object's.
  Who: [{ startTime: 20, executionIndex: 1, error: { message: 'ECONNREFUSED' }, data: null }],
  'Alert in': [
    {
      startTime: 10,
      executionIndex: 0,
      data: { main: [[{ json: { headers: { 'x-soar-stimulus': event } } }]] },
    },
  ],
});
const execution = (id: string, status: string, startedAt: string, event: string) => ({
  id,
  status,
  startedAt,
  workflowId: 'WF1',
  workflowData,
  data: { resultData: { runData: runData(event), lastNodeExecuted: 'Who' } },
});
const EXECUTIONS = [
  execution('30', 'error', '2026-11-26T10:00:01.000Z', 'evt-a'),
  execution('31', 'error', '2026-11-26T10:00:02.000Z', 'evt-a'),
  execution('29', 'success', '2026-11-26T09:00:00.000Z', 'evt-old'),
];
const RUNNING = [execution('32', 'running', '2026-11-26T10:00:03.000Z', 'evt-b')];

let url: string;
let server: Served;
const seen: string[] = [];
beforeAll(async () => {
  const app = new Hono();
  app.use('/api/v1/*', async (c, next) => {
    if (c.req.header('x-n8n-api-key') !== 'good-key') return c.json({ message: 'unauthorized' }, 401);
    await next();
  });
  app.get('/api/v1/workflows', (c) =>
    c.json({
      data: [{ id: 'WF1', name: 'Mine', active: true, nodes: [webhookNode], connections: {} }],
      nextCursor: null,
    }),
  );
  app.get('/api/v1/executions', (c) => {
    seen.push(new URL(c.req.url).search);
    const after = Date.parse(c.req.query('startedAfter') ?? '');
    const list = c.req.query('status') === 'running' ? RUNNING : EXECUTIONS;
    const data = list.filter(
      (e) => c.req.query('workflowId') === e.workflowId && Date.parse(e.startedAt) > after,
    );
    return c.json({ data, nextCursor: null });
  });
  app.get('/api/v1/executions/:id', (c) => {
    const found = [...EXECUTIONS, ...RUNNING].find((e) => e.id === c.req.param('id'));
    return found ? c.json({ id: found.id, status: found.status }) : c.json({ message: 'Not Found' }, 404);
  });
  server = await serveOnLoopback(app.fetch);
  url = server.url;
});
afterAll(() => server.close());

const query = (eventId: string, exclude: string[] = []) => ({
  eventId,
  path: 'suspicious-login',
  sentAt: SENT_AT,
  exclude,
});

describe("the checker's n8n run look-up", () => {
  it('finds the earliest run of the event in the workflow that holds the path, nodes in run order', async () => {
    const runs = n8nRunSource({ n8nUrl: url, apiKey: 'good-key', editorUrl: 'http://localhost:8080/' });
    const found = await runs.find(query('evt-a'));
    expect(found).toEqual({
      kind: 'found',
      run: {
        id: '30',
        url: 'http://localhost:8080/workflow/WF1/executions/30',
        status: 'error',
        lastNode: 'Who',
        busy: [[10, 20]],
        nodes: [
          {
            id: 'node-1',
            name: 'Alert in',
            type: 'n8n-nodes-base.webhook',
            error: null,
            output: [{ headers: { 'x-soar-stimulus': 'evt-a' } }],
            url: null,
          },
          {
            id: 'node-2',
            name: 'Who',
            type: 'n8n-nodes-base.httpRequest',
            error: 'ECONNREFUSED',
            output: [],
            url: '={{ $json.api }}/identity/x',
          },
        ],
      },
    });
    expect(seen.every((s) => s.includes('workflowId=WF1') && s.includes('includeData=true'))).toBe(true);
    // A second delivery of the same event: the first one's run is not its run.
    expect(await runs.find(query('evt-a', ['30']))).toMatchObject({ kind: 'found', run: { id: '31' } });
  });

  it('a running execution is found only through status=running; its status is polled cheaply', async () => {
    const runs = n8nRunSource({ n8nUrl: url, apiKey: 'good-key', editorUrl: url });
    expect(await runs.find(query('evt-b'))).toMatchObject({
      kind: 'found',
      run: { id: '32', status: 'running' },
    });
    expect(await runs.status('32')).toBe('running');
    expect(await runs.status('99')).toBeNull();
  });

  it('none for an event that did not run since the stimulus; a refused key is said as such', async () => {
    const runs = n8nRunSource({ n8nUrl: url, apiKey: 'good-key', editorUrl: url });
    expect(await runs.find(query('evt-old'))).toEqual({ kind: 'none' });
    const refused = n8nRunSource({ n8nUrl: url, apiKey: 'bad', editorUrl: url });
    expect(await refused.find(query('evt-a'))).toMatchObject({ kind: 'unreachable', refused: true });
    const down = n8nRunSource({ n8nUrl: 'http://127.0.0.1:9', apiKey: 'good-key', editorUrl: url });
    expect(await down.find(query('evt-a'))).toMatchObject({ kind: 'unreachable', refused: false });
  });

  it('says whether a published workflow holds a path (slashes aside), and cannot tell with a refused key', async () => {
    const runs = n8nRunSource({ n8nUrl: url, apiKey: 'good-key', editorUrl: url });
    expect(await runs.listens?.('suspicious-login')).toBe(true);
    expect(await runs.listens?.('/suspicious-login/')).toBe(true);
    expect(await runs.listens?.('suspicious-logins')).toBe(false);
    const refused = n8nRunSource({ n8nUrl: url, apiKey: 'bad', editorUrl: url });
    expect(await refused.listens?.('suspicious-login')).toBeNull();
    const down = n8nRunSource({ n8nUrl: 'http://127.0.0.1:9', apiKey: 'good-key', editorUrl: url });
    expect(await down.listens?.('suspicious-login')).toBeNull();
  });
});
