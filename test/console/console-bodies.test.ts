/**
 * The console's JSON bodies, answer for answer: every control refuses a body that is not JSON (400
 * bad_json) and one its schema does not fit (400 bad_request, naming the first issue) before it does
 * anything; the starter control says it is off or unavailable before it reads a body at all.
 */
import { describe, expect, it } from 'vitest';
import { createConsoleApp } from '../../app/console/app.js';
import { HOST, standInDeps, TOKEN } from './stand-in-deps.js';

const base = standInDeps();
let stopped = 0;
const app = createConsoleApp({
  ...base,
  n8nApiKey: 'a-key',
  stopRuns: async () => {
    stopped += 1;
    return 0;
  },
});

const post = (on: ReturnType<typeof createConsoleApp>, path: string, body: string) =>
  on.request(path, {
    method: 'POST',
    headers: { host: HOST, 'content-type': 'application/json', 'x-console-token': TOKEN },
    body,
  });
const refusal = (code: string, message: string) => ({ error: { code, message } });
const CONTROLS = [
  '/api/reset',
  '/api/case-mode',
  '/api/clock',
  '/api/approve',
  '/api/alert',
  '/api/check',
  '/api/starter',
];

describe('the console controls’ bodies', () => {
  it.each(CONTROLS)(
    '%s refuses what is not JSON, or not an object, before it does anything',
    async (path) => {
      for (const body of ['not json', '', '{"a":']) {
        const res = await post(app, path, body);
        expect(res.status, body).toBe(400);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
        expect(await res.json()).toEqual(refusal('bad_json', 'The body is not JSON.'));
      }
      for (const [body, kind] of [
        ['[]', 'array'],
        ['null', 'null'],
      ]) {
        const res = await post(app, path, body as string);
        expect(res.status, body).toBe(400);
        expect(await res.json()).toEqual(
          refusal('bad_request', `body: Invalid input: expected object, received ${kind}`),
        );
      }
      expect(stopped).toBe(0);
    },
  );

  it.each([
    ['/api/reset', '{}', 'confirm: Invalid input: expected true'],
    ['/api/reset', '{"confirm":false}', 'confirm: Invalid input: expected true'],
    [
      '/api/case-mode',
      '{"mode":"x"}',
      'mode: Invalid option: expected one of "healthy"|"failed"|"fail_next_write"',
    ],
    ['/api/clock', '{"advance_minutes":0}', 'advance_minutes: Too small: expected number to be >=1'],
    [
      '/api/clock',
      '{"advance_minutes":"5"}',
      'advance_minutes: Invalid input: expected number, received string',
    ],
    ['/api/approve', '{}', 'resume_url: Invalid input: expected string, received undefined'],
    [
      '/api/approve',
      '{"resume_url":"x","decision":"maybe","approver":"a"}',
      'decision: Invalid option: expected one of "approve"|"reject"',
    ],
    [
      '/api/approve',
      '{"resume_url":"x","decision":"approve","approver":"   "}',
      'approver: Too small: expected string to have >=1 characters',
    ],
    [
      '/api/alert',
      '{"kind":"nope"}',
      'kind: Invalid option: expected one of "positive"|"low_confidence"|"invalid"',
    ],
    ['/api/starter', '{"stage":42}', 'stage: Invalid input: expected string, received number'],
  ])('%s %s: 400 "%s"', async (path, body, message) => {
    const res = await post(app, path, body);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual(refusal('bad_request', message));
    expect(stopped).toBe(0);
  });

  it('the check control reads the stage first, then says it cannot run the checker', async () => {
    const bad = await post(app, '/api/check', '{"stage":42}');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: 'bad_request', message: /^stage: / } });
    const good = await post(app, '/api/check', '{"stage":"enrich"}');
    expect(good.status).toBe(503);
    expect(await good.json()).toMatchObject({ ok: false, error: { code: 'check_unavailable' } });
  });

  it('a fitting body reaches the handler: reset stops the runs first', async () => {
    const res = await post(app, '/api/reset', '{"confirm":true}');
    expect(stopped).toBe(1);
    // The mock API is not there: the control says so, after the body passed.
    expect(res.status).toBe(502);
    stopped = 0;
  });

  it('the starter control answers off (403) or unavailable (503) whatever the body', async () => {
    const off = createConsoleApp({ ...base, n8nApiKey: 'a-key', starters: 'off' });
    const keyless = createConsoleApp(base);
    for (const body of ['not json', '{"stage":42}', '{"stage":"enrich"}']) {
      const refusedOff = await post(off, '/api/starter', body);
      expect(refusedOff.status, body).toBe(403);
      expect(await refusedOff.json()).toMatchObject({ error: { code: 'starters_off' } });
      const refusedKeyless = await post(keyless, '/api/starter', body);
      expect(refusedKeyless.status, body).toBe(503);
      expect(await refusedKeyless.json()).toMatchObject({
        ok: false,
        error: { code: 'starter_unavailable' },
      });
    }
  });
});
