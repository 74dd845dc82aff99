import { describe, expect, it } from 'vitest';
import { HealthSchema } from '../../app/schemas/health.js';
import { blockRequest, expectSchema, makeTestApp } from '../helpers/test-app.js';

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
