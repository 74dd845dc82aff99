import { describe, expect, it } from 'vitest';
import { blockRequest, expectError, makeTestApp } from '../helpers/test-app.js';

/** The one decision on unknown body fields: refused where the body is closed, kept where it is a record. */
describe('unknown fields in a request body', () => {
  it.each([
    ['/blocklist', blockRequest()],
    ['/control/case-mode', { mode: 'failed' }],
    ['/control/clock', { advance_minutes: 5 }],
    ['/reset', {}],
  ])('%s refuses one with 422 naming it, and changes nothing', async (path, body) => {
    const t = makeTestApp();
    const before = JSON.stringify({ ...t.store.snapshot(), journal: [], now: '' });
    const res = await t.post(path, { ...body, reason: 'typo of a field' });
    expectError(res, 422, 'validation_failed');
    expect(JSON.stringify(res.body)).toContain('reason');
    expect(JSON.stringify({ ...t.store.snapshot(), journal: [], now: '' })).toBe(before);
  });

  it('POST /cases and POST /notify keep one as sent (open records), service-owned ones ignored', async () => {
    const t = makeTestApp();
    const kase = await t.post('/cases', { event_id: 'evt-1', ticket: 'INC-7', revision: 99 });
    expect(kase.body).toMatchObject({ event_id: 'evt-1', ticket: 'INC-7', revision: 1 });
    const note = await t.post('/notify', { message: 'm', ticket: 'INC-7', id: 'mine' });
    expect(note.body).toMatchObject({ id: 'ntf-000001', ticket: 'INC-7' });
  });
});

describe('path parameters', () => {
  it.each([
    ['/cases/', 'invalid_parameter'],
    ['/identity/', 'invalid_parameter'],
  ])('%s<129 characters> is 400 %s, and 128 characters is looked up', async (prefix, code) => {
    const t = makeTestApp();
    const res = await t.get(`${prefix}${'x'.repeat(129)}`);
    expectError(res, 400, code);
    expect(res.body).toMatchObject({ error: { details: [{ path: expect.any(String) }] } });
    expect((await t.get(`${prefix}${'x'.repeat(128)}`)).status).toBe(404);
  });
});
