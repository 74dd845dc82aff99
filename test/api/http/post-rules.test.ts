import { describe, expect, it } from 'vitest';
import { alertCase, expectError, makeTestApp } from '../../helpers/test-app.js';

const JSON_TYPE = { 'content-type': 'application/json' };
const POST_ROUTES = ['/cases', '/notify', '/blocklist', '/control/case-mode', '/control/clock', '/reset'];

describe('the POST rules, in the contract order', () => {
  it.each(POST_ROUTES)('applies rules 1-6 to %s', async (path) => {
    const t = makeTestApp();
    const cases: [string, Record<string, string>, number, string][] = [
      ['{}', { 'content-length': '2' }, 415, 'unsupported_media_type'],
      ['{}', { 'content-type': 'text/plain', 'content-length': '2' }, 415, 'unsupported_media_type'],
      ['{}', { 'content-type': 'application/jsonx', 'content-length': '2' }, 415, 'unsupported_media_type'],
      ['{}', JSON_TYPE, 411, 'length_required'],
      ['{}', { ...JSON_TYPE, 'content-length': '2.0' }, 400, 'invalid_content_length'],
      ['{}', { ...JSON_TYPE, 'content-length': '-2' }, 400, 'invalid_content_length'],
      ['{}', { ...JSON_TYPE, 'content-length': '0x2' }, 400, 'invalid_content_length'],
      ['{}', { ...JSON_TYPE, 'content-length': '65537' }, 413, 'payload_too_large'],
      ['{}', { ...JSON_TYPE, 'content-length': '99999999999999999999' }, 400, 'invalid_content_length'],
      ['{"a":', { ...JSON_TYPE, 'content-length': '5' }, 400, 'invalid_json'],
      ['[1]', { ...JSON_TYPE, 'content-length': '3' }, 400, 'body_not_object'],
      ['"s"', { ...JSON_TYPE, 'content-length': '3' }, 400, 'body_not_object'],
      ['42', { ...JSON_TYPE, 'content-length': '2' }, 400, 'body_not_object'],
    ];
    for (const [body, headers, status, code] of cases)
      expectError(await t.postRaw(path, body, headers), status, code);
  });

  it('accepts parameters on the media type and any case', async () => {
    const t = makeTestApp();
    const body = JSON.stringify(alertCase());
    const length = String(Buffer.byteLength(body));
    for (const type of [
      'application/json; charset=utf-8',
      'Application/JSON',
      'application/json ;charset="UTF-8"',
    ]) {
      const res = await t.postRaw('/cases', body, { 'content-type': type, 'content-length': length });
      expect(res.status).toBeLessThan(300);
    }
  });

  it('checks the media type before the length, and the length before the body', async () => {
    const t = makeTestApp();
    expectError(
      await t.postRaw('/cases', 'not json', { 'content-type': 'text/plain' }),
      415,
      'unsupported_media_type',
    );
    expectError(
      await t.postRaw('/cases', 'not json', { ...JSON_TYPE, 'content-length': '70000' }),
      413,
      'payload_too_large',
    );
  });

  it('closes the connection after refusing a body it did not read', async () => {
    const t = makeTestApp();
    const res = await t.postRaw('/cases', '{}', { ...JSON_TYPE, 'content-length': '70000' });
    expect(res.headers.get('connection')).toBe('close');
  });

  it('accepts a body of exactly 64 KiB and refuses one byte more', async () => {
    const t = makeTestApp();
    const make = (size: number) => {
      const base = JSON.stringify({ message: '' });
      return JSON.stringify({ message: 'x'.repeat(size - base.length) });
    };
    const exact = make(65_536);
    expect(Buffer.byteLength(exact)).toBe(65_536);
    expect((await t.postRaw('/notify', exact, { ...JSON_TYPE, 'content-length': '65536' })).status).toBe(202);
    const over = make(65_537);
    expectError(
      await t.postRaw('/notify', over, { ...JSON_TYPE, 'content-length': '65537' }),
      413,
      'payload_too_large',
    );
  });

  it('refuses a body that does not match its Content-Length', async () => {
    const t = makeTestApp();
    expectError(
      await t.postRaw('/notify', '{"message":"m"}', { ...JSON_TYPE, 'content-length': '99' }),
      400,
      'incomplete_body',
    );
    expect(t.store.notifications.size).toBe(0);
  });

  it('refuses invalid UTF-8 as invalid JSON', async () => {
    const t = makeTestApp();
    const res = await t.app.request('/notify', {
      method: 'POST',
      headers: { ...JSON_TYPE, 'content-length': '17' },
      body: Buffer.from([...Buffer.from('{"message":"'), 0xff, 0xfe, ...Buffer.from('"} ')]),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'invalid_json' } });
  });

  it('routes first: an unknown path is 404 and a wrong method 405 whatever the body', async () => {
    const t = makeTestApp();
    expectError(await t.postRaw('/nope', 'x', {}), 404, 'not_found');
    expectError(await t.postRaw('/health', 'x', {}), 405, 'method_not_allowed');
    expectError(await t.postRaw('/cases/evt-1', 'x', {}), 405, 'method_not_allowed');
  });

  it('changes no state on any refusal, apart from the journal', async () => {
    const t = makeTestApp();
    await t.post('/control/case-mode', { mode: 'fail_next_write' });
    const before = JSON.stringify({ ...((await t.get('/state')).body as object), journal: [] });
    await t.postRaw('/cases', '{}', { 'content-length': '2' });
    await t.postRaw('/blocklist', '[]', { ...JSON_TYPE, 'content-length': '2' });
    await t.post('/blocklist', { ip: '203.0.113.66', event_id: 'e', expires_minutes: 0 });
    await t.post('/reset', { please: true });
    await t.post('/control/clock', { advance_minutes: 0 });
    await t.post('/notify', { message: '' });
    const after = JSON.stringify({ ...((await t.get('/state')).body as object), journal: [] });
    expect(after).toBe(before);
  });
});

describe('routing and the error shape', () => {
  it('answers an unknown path with 404 not_found', async () => {
    const t = makeTestApp();
    for (const path of ['/', '/health/', '/identity/', '/state/x', '/cases/a/b', '/blocklist/1.2.3.4/x']) {
      expectError(await t.get(path), 404, 'not_found');
    }
  });

  it.each([
    ['DELETE', '/health', 'GET, HEAD'],
    ['POST', '/identity/lab-admin', 'GET, HEAD'],
    ['PUT', '/cases', 'POST'],
    ['DELETE', '/cases/evt-1', 'GET, HEAD'],
    ['PATCH', '/blocklist/203.0.113.66', 'GET, HEAD, DELETE'],
    ['GET', '/blocklist', 'POST'],
    ['GET', '/reset', 'POST'],
    ['DELETE', '/state', 'GET, HEAD'],
  ])('answers %s %s with 405 and Allow: %s', async (method, path, allow) => {
    const res = await makeTestApp().send(method, path);
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe(allow);
  });

  it('hides unexpected errors behind internal_error and logs them', async () => {
    const t = makeTestApp();
    t.store.stateParts = () => {
      throw new Error('secret stack detail');
    };
    const res = await t.get('/state');
    expectError(res, 500, 'internal_error');
    expect(JSON.stringify(res.body)).not.toContain('secret');
    expect(t.errors).toHaveLength(1);
  });
});
