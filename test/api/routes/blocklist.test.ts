import { describe, expect, it } from 'vitest';
import {
  AlreadyBlockedSchema,
  BlockEntrySchema,
  BlockLookupSchema,
  UnblockSchema,
} from '../../../app/api/schemas/blocklist.js';
import { StateSchema } from '../../../app/api/schemas/state.js';
import { blockRequest, expectError, expectSchema, makeTestApp } from '../../helpers/test-app.js';

describe('POST /blocklist', () => {
  it('blocks 203.0.113.66 with 201 and an expiring entry', async () => {
    const res = await makeTestApp().post('/blocklist', blockRequest());
    expect(res.status).toBe(201);
    expect(expectSchema(BlockEntrySchema, res.body)).toEqual({
      ip: '203.0.113.66',
      event_id: 'evt-1001',
      expires_minutes: 10,
      created_at: '2026-03-01T09:00:00.000Z',
      expires_at: '2026-03-01T09:10:00.000Z',
    });
  });

  it.each([['10.0.0.1'], ['203.0.113.67'], ['::ffff:203.0.113.66'], ['2001:db8::1']])(
    'refuses %s with 403 address_not_blockable',
    async (ip) => {
      const t = makeTestApp();
      expectError(await t.post('/blocklist', blockRequest({ ip })), 403, 'address_not_blockable');
      expect(t.store.blocklist.active(t.store.now())).toEqual([]);
    },
  );

  it.each([
    [{ expires_minutes: 10.5 }, 'expires_minutes'],
    [{ expires_minutes: '10' }, 'expires_minutes'],
    [{ expires_minutes: 0 }, 'expires_minutes'],
    [{ expires_minutes: 61 }, 'expires_minutes'],
    [{ expires_minutes: -1 }, 'expires_minutes'],
    [{ expires_minutes: null }, 'expires_minutes'],
    [{ expires_minutes: 1e300 }, 'expires_minutes'],
    [{ ip: 'not-an-ip' }, 'ip'],
    [{ ip: '999.1.1.1' }, 'ip'],
    [{ event_id: '' }, 'event_id'],
    [{ event_id: 7 }, 'event_id'],
  ])('refuses %j with 422 naming %s (fields are checked before the address)', async (change, path) => {
    const res = await makeTestApp().post('/blocklist', blockRequest(change));
    expectError(res, 422, 'validation_failed');
    expect(res.body).toMatchObject({
      error: { details: expect.arrayContaining([expect.objectContaining({ path })]) },
    });
  });

  it('accepts the bounds 1 and 60', async () => {
    const t = makeTestApp();
    expect((await t.post('/blocklist', blockRequest({ expires_minutes: 60 }))).status).toBe(201);
    await t.del('/blocklist/203.0.113.66');
    expect((await t.post('/blocklist', blockRequest({ expires_minutes: 1 }))).status).toBe(201);
  });

  it('answers 409 already_blocked with the existing entry beside the error, changing nothing', async () => {
    const t = makeTestApp();
    const first = await t.post('/blocklist', blockRequest());
    t.time.now += 60_000;
    const res = await t.post('/blocklist', blockRequest({ event_id: 'evt-other', expires_minutes: 60 }));
    expectError(res, 409, 'already_blocked');
    expect(expectSchema(AlreadyBlockedSchema, res.body).entry).toEqual(first.body);
    expect(t.store.blocklist.active(t.store.now())).toEqual([first.body]);
  });

  it('makes one entry from 50 parallel blocks', async () => {
    const t = makeTestApp();
    const results = await Promise.all(Array.from({ length: 50 }, () => t.post('/blocklist', blockRequest())));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(49);
    expect(t.store.blocklist.active(t.store.now())).toHaveLength(1);
  });
});

describe('GET /blocklist/:ip', () => {
  it('says blocked: true with the exact entry while present', async () => {
    const t = makeTestApp();
    const created = await t.post('/blocklist', blockRequest());
    const res = await t.get('/blocklist/203.0.113.66');
    expect(res.status).toBe(200);
    expect(expectSchema(BlockLookupSchema, res.body)).toEqual({
      ip: '203.0.113.66',
      blocked: true,
      entry: created.body,
    });
  });

  it('says blocked: false for an address that is not present', async () => {
    const res = await makeTestApp().get('/blocklist/198.51.100.7');
    expect(res.body).toEqual({ ip: '198.51.100.7', blocked: false });
  });

  it.each([['nope'], ['1.2.3'], ['203.0.113.66%20'], ['%00']])(
    'answers 400 invalid_ip for %s',
    async (ip) => {
      const t = makeTestApp();
      expectError(await t.get(`/blocklist/${ip}`), 400, 'invalid_ip');
      expectError(await t.del(`/blocklist/${ip}`), 400, 'invalid_ip');
    },
  );

  it('accepts IPv6 addresses in the path', async () => {
    expect((await makeTestApp().get('/blocklist/2001:db8::1')).body).toEqual({
      ip: '2001:db8::1',
      blocked: false,
    });
  });
});

describe('DELETE /blocklist/:ip', () => {
  it('removes the exact entry and records it as unblocked', async () => {
    const t = makeTestApp();
    const created = await t.post('/blocklist', blockRequest());
    t.time.now += 90_000;
    const res = await t.del('/blocklist/203.0.113.66');
    expect(res.status).toBe(200);
    expect(expectSchema(UnblockSchema, res.body)).toEqual({
      ip: '203.0.113.66',
      removed: true,
      blocked: false,
      entry: created.body,
    });
    expect((await t.get('/blocklist/203.0.113.66')).body).toEqual({ ip: '203.0.113.66', blocked: false });
    const state = expectSchema(StateSchema, (await t.get('/state')).body);
    expect(state.blocklist).toEqual([]);
    expect(state.blocklist_history).toEqual([
      { ...(created.body as object), removed_at: '2026-03-01T09:01:30.000Z', removed_reason: 'unblocked' },
    ]);
  });

  it('answers 404 not_blocked when the address is absent', async () => {
    expectError(await makeTestApp().del('/blocklist/203.0.113.66'), 404, 'not_blocked');
  });
});

describe('expiry', () => {
  it('removes the entry when the service clock reaches expires_at, recorded as expired', async () => {
    const t = makeTestApp();
    const created = await t.post('/blocklist', blockRequest({ expires_minutes: 1 }));
    t.time.now += 59_999;
    expect((await t.get('/blocklist/203.0.113.66')).body).toMatchObject({ blocked: true });
    t.time.now += 1;
    expect((await t.get('/blocklist/203.0.113.66')).body).toEqual({ ip: '203.0.113.66', blocked: false });
    const state = expectSchema(StateSchema, (await t.get('/state')).body);
    expect(state.blocklist).toEqual([]);
    expect(state.blocklist_history).toEqual([
      { ...(created.body as object), removed_at: '2026-03-01T09:01:00.000Z', removed_reason: 'expired' },
    ]);
    expectError(await t.del('/blocklist/203.0.113.66'), 404, 'not_blocked');
    expect((await t.post('/blocklist', blockRequest())).status).toBe(201);
  });

  it('expires through POST /control/clock, so a trainer can show expiry in seconds', async () => {
    const t = makeTestApp();
    await t.post('/blocklist', blockRequest({ expires_minutes: 10 }));
    const moved = await t.post('/control/clock', { advance_minutes: 10 });
    expect(moved.body).toEqual({ now: '2026-03-01T09:10:00.000Z' });
    expect((await t.get('/blocklist/203.0.113.66')).body).toMatchObject({ blocked: false });
    expect((await t.get('/health')).body).toMatchObject({ counts: { blocklist: 0 } });
  });

  it('keeps the history bounded under endless block/unblock', async () => {
    const t = makeTestApp();
    for (let i = 0; i < 1100; i++) {
      await t.post('/blocklist', blockRequest());
      await t.del('/blocklist/203.0.113.66');
    }
    const state = expectSchema(StateSchema, (await t.get('/state')).body);
    expect(state.blocklist_history).toHaveLength(1000);
    expect(state.journal).toHaveLength(1000);
  });
});
