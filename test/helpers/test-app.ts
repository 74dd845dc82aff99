import { expect } from 'vitest';
import type { z } from 'zod';
import { createApp, defaultDeps } from '../../app/api/app.js';
import type { AccessPolicy } from '../../app/api/http/access.js';
import { createClock } from '../../app/api/store/clock.js';
import { Store } from '../../app/api/store/store.js';

export const T0 = Date.parse('2026-03-01T09:00:00.000Z');

export interface TestResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

/**
 * A fresh app on a fake clock for each test: `time.now` is the real clock the service sees and can be
 * moved by the test. Requests go through app.request(), no socket.
 */
export function makeTestApp(options: { access?: AccessPolicy } = {}) {
  const time = { now: T0 };
  const store = new Store(createClock(() => time.now));
  const logs: string[] = [];
  const errors: unknown[] = [];
  const app = createApp(
    defaultDeps({
      store,
      realNow: () => time.now,
      log: (line) => logs.push(line),
      logError: (err) => errors.push(err),
      ...(options.access && { access: options.access }),
    }),
  );

  async function send(
    method: string,
    path: string,
    init: { body?: string; headers?: Record<string, string> } = {},
  ) {
    const res = await app.request(path, { method, headers: init.headers, body: init.body });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      body: text === '' ? undefined : JSON.parse(text),
    } satisfies TestResponse;
  }

  return {
    app,
    store,
    time,
    logs,
    errors,
    send,
    get: (path: string, headers?: Record<string, string>) => send('GET', path, { headers }),
    del: (path: string) => send('DELETE', path),
    /** POST a JSON value the way a well-behaved client does (type and length set). */
    post: (path: string, value: unknown, headers: Record<string, string> = {}) => {
      const body = JSON.stringify(value);
      return send('POST', path, {
        body,
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          ...headers,
        },
      });
    },
    /** POST raw text with exactly the headers given. */
    postRaw: (path: string, body: string, headers: Record<string, string>) =>
      send('POST', path, { body, headers }),
  };
}

export type TestApp = ReturnType<typeof makeTestApp>;

/** Asserts the body matches the schema the route declares, and returns it typed. */
export function expectSchema<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body);
  if (!result.success)
    expect.fail(`response does not match its schema: ${result.error.message}\n${JSON.stringify(body)}`);
  return result.data;
}

/** Asserts the contract's error shape and code. */
export function expectError(res: TestResponse, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(res.body).toMatchObject({ error: { code, message: expect.any(String) } });
}

export const alertCase = (eventId = 'evt-1001', extra: Record<string, unknown> = {}) => ({
  event_id: eventId,
  evidence: { alert: { user: 'lab-admin', source_ip: '203.0.113.66' } },
  approver: null,
  result: 'pending',
  ...extra,
});

export const blockRequest = (extra: Record<string, unknown> = {}) => ({
  ip: '203.0.113.66',
  event_id: 'evt-1001',
  expires_minutes: 10,
  ...extra,
});
