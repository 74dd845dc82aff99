import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../../app/api/http/errors.js';
import { refusalError, unwrap } from '../../../app/api/http/refusal.js';
import { BLOCKABLE_ADDRESS } from '../../../app/api/schemas/blocklist.js';
import { ERROR_STATUS } from '../../../app/api/schemas/error.js';
import { Blocklist } from '../../../app/api/store/blocklist.js';
import { CaseConnector } from '../../../app/api/store/case-connector.js';
import { CaseStore } from '../../../app/api/store/cases.js';
import { NotificationStore } from '../../../app/api/store/notifications.js';
import type { Refusal } from '../../../app/api/store/outcome.js';
import { type LocalMockApi, startLocalMockApi } from '../../../app/mock-api-client/local-mock-api.js';
import { parseResponses, rawExchange } from '../../helpers/raw-http.js';

const entry = {
  ip: BLOCKABLE_ADDRESS,
  event_id: 'evt-1',
  expires_minutes: 10,
  created_at: '2026-03-01T09:00:00.000Z',
  expires_at: '2026-03-01T09:10:00.000Z',
};

describe('store refusals', () => {
  it('are returned as domain outcomes, never thrown', () => {
    const blocklist = new Blocklist(10);
    const block = (ip: string) => blocklist.blockAddress({ ip, event_id: 'e', expires_minutes: 5 }, 0);
    expect(block('198.51.100.7')).toEqual({
      ok: false,
      refusal: { kind: 'address_not_blockable', ip: '198.51.100.7', blockable: BLOCKABLE_ADDRESS },
    });
    const first = block(BLOCKABLE_ADDRESS);
    expect(first.ok).toBe(true);
    expect(block(BLOCKABLE_ADDRESS)).toMatchObject({ ok: false, refusal: { kind: 'already_blocked' } });
    expect(blocklist.unblockAddress('::1', 0)).toEqual({
      ok: false,
      refusal: { kind: 'not_blocked', ip: '::1' },
    });

    const cases = new CaseStore(1, 40);
    expect(cases.upsertCase({ event_id: 'a' }, 0).ok).toBe(true);
    expect(cases.upsertCase({ event_id: 'b' }, 0)).toEqual({
      ok: false,
      refusal: { kind: 'case_limit_reached', limit: 1 },
    });
    expect(cases.upsertCase({ event_id: 'a', result: 'x'.repeat(50) }, 0)).toEqual({
      ok: false,
      refusal: { kind: 'case_too_large', maxBytes: 40 },
    });

    const notifications = new NotificationStore(0);
    expect(notifications.acceptNotification({ message: 'm' }, 0)).toEqual({
      ok: false,
      refusal: { kind: 'notification_limit_reached', limit: 0 },
    });

    const connector = new CaseConnector();
    connector.setMode('fail_next_write');
    expect(connector.read().ok).toBe(true);
    expect(connector.write()).toEqual({ ok: false, refusal: { kind: 'case_connector_failed' } });
    expect(connector.write().ok).toBe(true);
  });

  const refusals: Refusal[] = [
    { kind: 'address_not_blockable', ip: '198.51.100.7', blockable: BLOCKABLE_ADDRESS },
    { kind: 'already_blocked', entry },
    { kind: 'not_blocked', ip: '::1' },
    { kind: 'case_limit_reached', limit: 1000 },
    { kind: 'case_too_large', maxBytes: 65536 },
    { kind: 'notification_limit_reached', limit: 1000 },
    { kind: 'case_connector_failed' },
  ];

  it.each(refusals)('$kind maps to its own error code and status in one place', (refusal) => {
    const error = refusalError(refusal);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe(refusal.kind);
    expect(error.status).toBe(ERROR_STATUS[refusal.kind]);
    expect(error.message.length).toBeGreaterThan(10);
    expect(() => unwrap({ ok: false, refusal })).toThrow(error.message);
  });

  it('keeps the existing entry beside an already_blocked error', () => {
    expect(refusalError({ kind: 'already_blocked', entry }).body()).toMatchObject({
      error: { code: 'already_blocked' },
      entry,
    });
    expect(unwrap({ ok: true, value: 7 })).toBe(7);
  });
});

describe('the acceptance runner in-process mock API', () => {
  let api: LocalMockApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  it('crosses the production socket handling: a parser refusal is answered in the contract shape', async () => {
    api = await startLocalMockApi();
    const port = Number(new URL(api.url).port);
    const text = await rawExchange(port, [
      'POST /notify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1x\r\n\r\n{}',
    ]);
    const [response] = parseResponses(text);
    expect(response?.status).toBe(400);
    expect(response?.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response?.json).toMatchObject({ error: { code: 'invalid_content_length' } });
  });
});
