import { describe, expect, it } from 'vitest';
import { ResetResponseSchema, StateSchema } from '../../../app/api/schemas/state.js';
import { alertCase, blockRequest, expectError, expectSchema, makeTestApp } from '../../helpers/test-app.js';

describe('GET /state', () => {
  it('returns every piece of destination state', async () => {
    const t = makeTestApp();
    await t.post('/cases', alertCase('evt-1'));
    await t.post('/notify', { message: 'm', event_id: 'evt-1' });
    await t.post('/blocklist', blockRequest());
    await t.post('/control/case-mode', { mode: 'fail_next_write' });
    const state = expectSchema(StateSchema, (await t.get('/state')).body);
    expect(state.case_mode).toBe('fail_next_write');
    expect(state.now).toBe('2026-03-01T09:00:00.000Z');
    expect(state.cases.map((c) => c.event_id)).toEqual(['evt-1']);
    expect(state.notifications.map((n) => n.message)).toEqual(['m']);
    expect(state.blocklist.map((b) => b.ip)).toEqual(['203.0.113.66']);
    expect(state.blocklist_history).toEqual([]);
  });
});

describe("the state's since", () => {
  it("is the service's start, moves to each reset, and not with the clock's advance", async () => {
    const t = makeTestApp();
    const start = expectSchema(StateSchema, (await t.get('/state')).body);
    expect(start.since).toBe('2026-03-01T09:00:00.000Z');
    t.time.now += 60_000;
    await t.post('/control/clock', { advance_minutes: 30 });
    expect(expectSchema(StateSchema, (await t.get('/state')).body).since).toBe(start.since);
    t.time.now += 60_000;
    await t.post('/reset', {});
    const after = expectSchema(StateSchema, (await t.get('/state')).body);
    // The clock back to real time, and the state begun then.
    expect(after.since).toBe('2026-03-01T09:02:00.000Z');
    expect(after.now).toBe(after.since);
  });
});

describe('the request journal', () => {
  it('records method, raw path without query, status and time, refused requests included', async () => {
    const t = makeTestApp();
    await t.get('/identity/lab-admin?verbose=1');
    await t.get('/cases/evt%2F1');
    await t.post('/blocklist', blockRequest({ ip: '10.0.0.1' }));
    await t.send('PUT', '/cases');
    await t.get('/nowhere');
    const { journal } = expectSchema(StateSchema, (await t.get('/state')).body);
    expect(journal.map(({ method, path, status }) => [method, path, status])).toEqual([
      ['GET', '/identity/lab-admin', 200],
      ['GET', '/cases/evt%2F1', 404],
      ['POST', '/blocklist', 403],
      ['PUT', '/cases', 405],
      ['GET', '/nowhere', 404],
    ]);
    expect(journal.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(journal[0]?.at).toBe('2026-03-01T09:00:00.000Z');
  });

  it('leaves out GET /health and GET /state themselves', async () => {
    const t = makeTestApp();
    await t.get('/health');
    await t.get('/state');
    await t.send('HEAD', '/health');
    await t.post('/state', {});
    const { journal } = expectSchema(StateSchema, (await t.get('/state')).body);
    expect(journal.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual(['POST /state 405']);
  });

  it('is a ring of the last 1,000 requests', async () => {
    const t = makeTestApp();
    for (let i = 0; i < 1005; i++) await t.get(`/identity/u${i}`);
    const { journal } = expectSchema(StateSchema, (await t.get('/state')).body);
    expect(journal).toHaveLength(1000);
    expect(journal[0]).toMatchObject({ seq: 6, path: '/identity/u5' });
    expect(journal.at(-1)).toMatchObject({ seq: 1005, path: '/identity/u1004' });
  });

  it('writes one JSON log line per request, health included', async () => {
    const t = makeTestApp();
    await t.get('/health');
    await t.post('/cases', { event_id: '' });
    expect(t.logs).toHaveLength(2);
    const lines = t.logs.map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({
      method: 'GET',
      path: '/health',
      status: 200,
      duration_ms: expect.any(Number),
    });
    expect(lines[1]).toMatchObject({ method: 'POST', path: '/cases', status: 422 });
    expect(lines[0].time).toBe('2026-03-01T09:00:00.000Z');
  });
});

describe('POST /reset', () => {
  it('clears cases, notifications, blocklist, history and journal, heals the connector', async () => {
    const t = makeTestApp();
    await t.post('/cases', alertCase());
    await t.post('/notify', { message: 'm' });
    await t.post('/blocklist', blockRequest());
    await t.del('/blocklist/203.0.113.66');
    await t.post('/blocklist', blockRequest());
    await t.post('/control/case-mode', { mode: 'failed' });
    await t.post('/control/clock', { advance_minutes: 5 });
    const res = await t.post('/reset', {});
    expect(res.status).toBe(200);
    expect(expectSchema(ResetResponseSchema, res.body)).toEqual({ reset: true, case_mode: 'healthy' });
    const state = expectSchema(StateSchema, (await t.get('/state')).body);
    expect(state).toMatchObject({
      case_mode: 'healthy',
      now: '2026-03-01T09:00:00.000Z',
      cases: [],
      notifications: [],
      blocklist: [],
      blocklist_history: [],
    });
    expect(state.journal.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual(['POST /reset 200']);
    expect((await t.post('/notify', { message: 'again' })).body).toMatchObject({ id: 'ntf-000001' });
  });

  it.each([[{ all: true }], [{ confirm: 'yes' }]])('refuses %j with 422 and clears nothing', async (body) => {
    const t = makeTestApp();
    await t.post('/cases', alertCase());
    expectError(await t.post('/reset', body), 422, 'validation_failed');
    expect(t.store.cases.size).toBe(1);
  });

  it.each([
    ['no body', '', { 'content-type': 'application/json', 'content-length': '0' }, 400, 'invalid_json'],
    ['no content type', '{}', { 'content-length': '2' }, 415, 'unsupported_media_type'],
    ['an array', '[]', { 'content-type': 'application/json', 'content-length': '2' }, 400, 'body_not_object'],
    ['null', 'null', { 'content-type': 'application/json', 'content-length': '4' }, 400, 'body_not_object'],
  ])('refuses %s through the POST rules', async (_name, body, headers, status, code) => {
    const t = makeTestApp();
    await t.post('/cases', alertCase());
    expectError(await t.postRaw('/reset', body, headers), status, code);
    expect(t.store.cases.size).toBe(1);
  });
});
