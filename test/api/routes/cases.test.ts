import { describe, expect, it } from 'vitest';
import { CaseSchema } from '../../../app/api/schemas/case.js';
import { StateSchema } from '../../../app/api/schemas/state.js';
import { alertCase, expectError, expectSchema, makeTestApp } from '../../helpers/test-app.js';

describe('POST /cases', () => {
  it('creates a case with 201, revision 1, timestamps and a Location header', async () => {
    const t = makeTestApp();
    const res = await t.post('/cases', alertCase('evt-1'));
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe('/cases/evt-1');
    const created = expectSchema(CaseSchema, res.body);
    expect(created).toMatchObject({ event_id: 'evt-1', revision: 1, evidence: alertCase().evidence });
    expect(created.created_at).toBe('2026-03-01T09:00:00.000Z');
    expect(created.updated_at).toBe(created.created_at);
  });

  it('updates the same event: 200, fields sent replace, others stay, revision +1, no second case', async () => {
    const t = makeTestApp();
    await t.post('/cases', alertCase('evt-1', { result: 'pending', approver: null }));
    t.time.now += 5_000;
    const res = await t.post('/cases', { event_id: 'evt-1', result: 'blocked', final_action: 'blocked' });
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    const updated = expectSchema(CaseSchema, res.body);
    expect(updated).toMatchObject({
      result: 'blocked',
      final_action: 'blocked',
      approver: null,
      revision: 2,
    });
    expect(updated.evidence).toEqual(alertCase().evidence);
    expect(updated.created_at).toBe('2026-03-01T09:00:00.000Z');
    expect(updated.updated_at).toBe('2026-03-01T09:00:05.000Z');
    const state = expectSchema(StateSchema, (await t.get('/state')).body);
    expect(state.cases).toHaveLength(1);
  });

  it('ignores the service-owned fields a client sends', async () => {
    const t = makeTestApp();
    const res = await t.post('/cases', {
      event_id: 'evt-1',
      revision: 42,
      created_at: '1999-01-01T00:00:00Z',
      updated_at: 'x',
      id: 'mine',
      status: 'closed',
      accepted_at: 'y',
    });
    expect(res.body).toEqual({
      event_id: 'evt-1',
      revision: 1,
      created_at: '2026-03-01T09:00:00.000Z',
      updated_at: '2026-03-01T09:00:00.000Z',
    });
  });

  it('keeps further top-level fields as sent', async () => {
    const res = await makeTestApp().post('/cases', {
      event_id: 'e',
      custom: { nested: [1, 'two'] },
      score: 7,
    });
    expect(res.body).toMatchObject({ custom: { nested: [1, 'two'] }, score: 7 });
  });

  it('percent-encodes the event id in Location, and the lookup decodes it', async () => {
    const t = makeTestApp();
    const eventId = 'evt/ä 1?#';
    const res = await t.post('/cases', { event_id: eventId });
    const location = res.headers.get('location');
    expect(location).toBe(`/cases/${encodeURIComponent(eventId)}`);
    const found = await t.get(location ?? '');
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ event_id: eventId });
  });

  it.each([
    [{}, 'event_id'],
    [{ event_id: '' }, 'event_id'],
    [{ event_id: 'x'.repeat(129) }, 'event_id'],
    [{ event_id: 5 }, 'event_id'],
    [{ event_id: 'e', evidence: 'text' }, 'evidence'],
    [{ event_id: 'e', approver: 7 }, 'approver'],
    [{ event_id: 'e', verification: [1] }, 'verification'],
    [{ event_id: 'e', result: false }, 'result'],
  ])('refuses %j with 422 naming %s', async (body, path) => {
    const t = makeTestApp();
    const res = await t.post('/cases', body);
    expectError(res, 422, 'validation_failed');
    expect(res.body).toMatchObject({
      error: { details: expect.arrayContaining([expect.objectContaining({ path })]) },
    });
    expect(t.store.cases.size).toBe(0);
  });

  it('stores nothing under __proto__ or constructor and pollutes no prototype', async () => {
    const t = makeTestApp();
    const raw =
      '{"event_id":"p","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"evidence":{"__proto__":{"polluted":true}}}';
    const res = await t.postRaw('/cases', raw, {
      'content-type': 'application/json',
      'content-length': String(raw.length),
    });
    expect(res.status).toBe(201);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    const found = t.store.cases.find('p');
    expect(Object.getPrototypeOf(found)).toBe(Object.prototype);
    expect((found as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('GET /cases/:event_id', () => {
  it('answers 404 case_not_found before any case exists', async () => {
    expectError(await makeTestApp().get('/cases/evt-1'), 404, 'case_not_found');
  });

  it('returns the stored case', async () => {
    const t = makeTestApp();
    await t.post('/cases', alertCase('evt-1'));
    const res = await t.get('/cases/evt-1');
    expect(res.status).toBe(200);
    expect(expectSchema(CaseSchema, res.body)).toMatchObject(alertCase('evt-1'));
  });

  it('does not find prototype names', async () => {
    expectError(await makeTestApp().get('/cases/__proto__'), 404, 'case_not_found');
  });
});

describe('the case connector (case_mode)', () => {
  it('fails writes and lookups with 503 while failed, writing nothing', async () => {
    const t = makeTestApp();
    await t.post('/cases', alertCase('evt-1'));
    await t.post('/control/case-mode', { mode: 'failed' });
    expectError(await t.post('/cases', alertCase('evt-2')), 503, 'case_connector_failed');
    expectError(await t.get('/cases/evt-1'), 503, 'case_connector_failed');
    expectError(await t.post('/cases', alertCase('evt-2')), 503, 'case_connector_failed');
    expect(t.store.cases.size).toBe(1);
    await t.post('/control/case-mode', { mode: 'healthy' });
    expect((await t.post('/cases', alertCase('evt-2'))).status).toBe(201);
  });

  it('fails once in fail_next_write, then recovers', async () => {
    const t = makeTestApp();
    await t.post('/control/case-mode', { mode: 'fail_next_write' });
    expectError(await t.post('/cases', alertCase('evt-1')), 503, 'case_connector_failed');
    expect(t.store.cases.size).toBe(0);
    expect((await t.get('/health')).body).toMatchObject({ case_mode: 'healthy' });
    expect((await t.post('/cases', alertCase('evt-1'))).status).toBe(201);
  });

  it('keeps lookups healthy in fail_next_write, and they do not use up the failure', async () => {
    const t = makeTestApp();
    await t.post('/cases', alertCase('evt-1'));
    await t.post('/control/case-mode', { mode: 'fail_next_write' });
    expect((await t.get('/cases/evt-1')).status).toBe(200);
    expectError(await t.get('/cases/evt-2'), 404, 'case_not_found');
    expectError(await t.post('/cases', alertCase('evt-1')), 503, 'case_connector_failed');
  });

  it('does not use up fail_next_write on a refused body (422 or POST rule)', async () => {
    const t = makeTestApp();
    await t.post('/control/case-mode', { mode: 'fail_next_write' });
    expectError(await t.post('/cases', { event_id: '' }), 422, 'validation_failed');
    expectError(
      await t.postRaw('/cases', '{', { 'content-type': 'application/json', 'content-length': '1' }),
      400,
      'invalid_json',
    );
    expectError(
      await t.postRaw('/cases', '{}', { 'content-type': 'text/plain', 'content-length': '2' }),
      415,
      'unsupported_media_type',
    );
    expectError(await t.post('/cases', alertCase()), 503, 'case_connector_failed');
  });

  it('keeps notify working in every mode', async () => {
    const t = makeTestApp();
    for (const mode of ['failed', 'fail_next_write', 'healthy']) {
      await t.post('/control/case-mode', { mode });
      expect((await t.post('/notify', { message: `in ${mode}` })).status).toBe(202);
    }
    expect((await t.get('/health')).body).toMatchObject({ case_mode: 'healthy' });
  });
});

describe('the case limit', () => {
  it('refuses the 1,001st new case with 507 saying to reset, but still updates existing cases', async () => {
    const t = makeTestApp();
    for (let i = 0; i < 1000; i++) expect((await t.post('/cases', { event_id: `e${i}` })).status).toBe(201);
    const refused = await t.post('/cases', { event_id: 'one-too-many' });
    expectError(refused, 507, 'case_limit_reached');
    expect(JSON.stringify(refused.body)).toMatch(/reset/i);
    expect(t.store.cases.size).toBe(1000);
    const updated = await t.post('/cases', { event_id: 'e7', result: 'still works' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ revision: 2 });
    await t.post('/reset', {});
    expect((await t.post('/cases', { event_id: 'one-too-many' })).status).toBe(201);
  });

  it('checks the connector before the limit (the contract order: 422, 503, 507)', async () => {
    const t = makeTestApp();
    for (let i = 0; i < 1000; i++) await t.post('/cases', { event_id: `e${i}` });
    await t.post('/control/case-mode', { mode: 'failed' });
    expectError(await t.post('/cases', { event_id: 'new' }), 503, 'case_connector_failed');
    expectError(await t.post('/cases', { event_id: '' }), 422, 'validation_failed');
  });
});

describe('concurrent writes', () => {
  it('turns 50 parallel writes of one new event into one case and one 201', async () => {
    const t = makeTestApp();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => t.post('/cases', alertCase('race', { writer: i }))),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(49);
    expect(t.store.cases.size).toBe(1);
    expect(t.store.cases.find('race')?.revision).toBe(50);
  });
});
