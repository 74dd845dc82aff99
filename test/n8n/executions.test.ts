/**
 * The Webhook stage's execution-data judgement against a stand-in of n8n's public API on loopback
 * (real HTTP, the API's shapes and its X-N8N-API-KEY header), and against broken execution data.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findExecutionFields, missingFields } from '../../app/n8n/executions.js';

const SENT = {
  event_id: 'evt-chk-1',
  event_type: 'suspicious_login',
  user: 'lab-admin',
  source_ip: '203.0.113.66',
  confidence: 79,
  environment: 'training',
  successful_login: true,
};

/** The run data n8n 2.x keeps for a Webhook node: the body under json.body. */
function runData(body: Record<string, unknown>) {
  return {
    Webhook: [{ startTime: 1, data: { main: [[{ json: { headers: {}, params: {}, query: {}, body } }]] } }],
    Validate: [{ data: { main: [[{ json: { ok: true } }]] } }],
  };
}

const executions: Record<string, unknown> = {
  '12': { id: '12', data: { resultData: { runData: runData({ event_id: 'evt-other' }) } } },
  '11': { id: '11', data: { resultData: { runData: runData(SENT) } } },
  '10': {
    id: '10',
    data: {
      resultData: { runData: runData({ ...SENT, event_id: 'evt-chk-2', confidence: '79', user: undefined }) },
    },
  },
};

let url: string;
let server: ReturnType<typeof serve>;
beforeAll(async () => {
  const app = new Hono();
  app.use('/api/v1/*', async (c, next) => {
    if (c.req.header('x-n8n-api-key') !== 'good-key') return c.json({ message: 'unauthorized' }, 401);
    await next();
  });
  app.get('/api/v1/executions', (c) =>
    c.json({ data: ['12', '11', '10'].map((id) => ({ id })), nextCursor: null }),
  );
  app.get('/api/v1/executions/:id', (c) => {
    const found = executions[c.req.param('id')];
    if (found === undefined || c.req.query('includeData') !== 'true') return c.json({ message: 'nope' }, 404);
    return c.json(found);
  });
  server = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  const address: AddressInfo | string | null = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  url = `http://127.0.0.1:${address.port}`;
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      if ('closeAllConnections' in server) server.closeAllConnections();
    }),
);

describe('the seven fields in the execution data (n8n public API)', () => {
  it('finds the execution of the alert among others and sees all seven fields', async () => {
    const found = await findExecutionFields({
      n8nUrl: url,
      apiKey: 'good-key',
      eventId: 'evt-chk-1',
      sent: SENT,
      timeoutMs: 0,
    });
    expect(found).toEqual({ kind: 'found', executionId: '11', missing: [] });
  });

  it('names the fields a Webhook lost or changed', async () => {
    const found = await findExecutionFields({
      n8nUrl: url,
      apiKey: 'good-key',
      eventId: 'evt-chk-2',
      sent: { ...SENT, event_id: 'evt-chk-2' },
      timeoutMs: 0,
    });
    expect(found).toEqual({ kind: 'found', executionId: '10', missing: ['user', 'confidence'] });
  });

  it('says when no execution carries the event, and when the key is refused', async () => {
    const none = await findExecutionFields({
      n8nUrl: url,
      apiKey: 'good-key',
      eventId: 'evt-nowhere',
      sent: SENT,
      timeoutMs: 0,
    });
    expect(none.kind).toBe('not-found');
    const refused = await findExecutionFields({
      n8nUrl: url,
      apiKey: 'bad',
      eventId: 'evt-chk-1',
      sent: SENT,
      timeoutMs: 0,
    });
    expect(refused).toEqual({ kind: 'error', detail: expect.stringContaining('401') });
  });

  it('matches values exactly, by the field’s own name, never through inherited names', () => {
    expect(missingFields({ a: { confidence: 79 } }, { confidence: 79 })).toEqual([]);
    expect(missingFields({ a: { confidence: '79' } }, { confidence: 79 })).toEqual(['confidence']);
    expect(missingFields({ toString: 'x' }, { constructor: undefined, toString: 'y' })).toEqual([
      'constructor',
      'toString',
    ]);
  });
});
