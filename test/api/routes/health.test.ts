import { describe, expect, it } from 'vitest';
import { HealthSchema } from '../../../app/api/schemas/health.js';
import { blockRequest, expectSchema, makeTestApp } from '../../helpers/test-app.js';

describe('GET /health', () => {
  it('reports ok, the case mode, counts, limits and version', async () => {
    const t = makeTestApp();
    const res = await t.get('/health');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const health = expectSchema(HealthSchema, res.body);
    expect(health).toMatchObject({
      status: 'ok',
      case_mode: 'healthy',
      counts: { cases: 0, notifications: 0, blocklist: 0 },
      limits: { cases: 1000, notifications: 1000 },
      version: '1.0.0',
    });
  });

  it('counts what the state holds and follows the case mode', async () => {
    const t = makeTestApp();
    await t.post('/cases', { event_id: 'a' });
    await t.post('/notify', { message: 'hello' });
    await t.post('/blocklist', blockRequest());
    await t.post('/control/case-mode', { mode: 'failed' });
    t.time.now += 61_000;
    const health = expectSchema(HealthSchema, (await t.get('/health')).body);
    expect(health.counts).toEqual({ cases: 1, notifications: 1, blocklist: 1 });
    expect(health.case_mode).toBe('failed');
    expect(health.uptime_s).toBe(61);
  });
});

describe('GET /health: its cached text follows every change', () => {
  /** What /health must say now, read from the store itself. */
  const expected = (t: ReturnType<typeof makeTestApp>) => ({
    case_mode: t.store.connector.mode,
    counts: {
      cases: t.store.cases.size,
      notifications: t.store.notifications.size,
      blocklist: t.store.blocklist.active(t.store.now()).length,
    },
  });
  const steps: [string, (t: ReturnType<typeof makeTestApp>) => unknown][] = [
    ['a case is created', (t) => t.post('/cases', { event_id: 'a' })],
    ['a notification is accepted', (t) => t.post('/notify', { message: 'm' })],
    ['an address is blocked', (t) => t.post('/blocklist', blockRequest({ expires_minutes: 1 }))],
    ['the block expires by time alone', (t) => (t.time.now += 60_000)],
    ['an address is blocked again', (t) => t.post('/blocklist', blockRequest())],
    ['it is unblocked', (t) => t.del('/blocklist/203.0.113.66')],
    ['the case mode is set', (t) => t.post('/control/case-mode', { mode: 'failed' })],
    ['a change made on the store directly', (t) => t.store.cases.upsertCase({ event_id: 'b' }, 0)],
    ['the service is reset', (t) => t.post('/reset', {})],
  ];

  it('answers what the store holds after each step of a sequence', async () => {
    const t = makeTestApp();
    for (const [name, step] of steps) {
      await t.get('/health');
      await step(t);
      const health = expectSchema(HealthSchema, (await t.get('/health')).body);
      expect({ step: name, ...health }, name).toMatchObject({ step: name, ...expected(t) });
    }
  });
});
