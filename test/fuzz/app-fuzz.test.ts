/**
 * Property-based fuzzing of every route through app.request() (no socket): breadth. Each run sends a
 * sequence of hostile requests to a fresh app and checks the invariants after every answer. Bounded:
 * a few hundred runs with a fixed budget; FUZZ_SEED=<seed> [FUZZ_PATH=<path>] reproduces a failure and
 * FUZZ_RUNS=<n> hunts longer (see docs/hardening.md).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StateSchema } from '../../app/api/schemas/state.js';
import { LIMITS } from '../../app/api/store/store.js';
import { makeTestApp, type TestApp } from '../helpers/test-app.js';
import { FUZZ_TEST_TIMEOUT_MS, type FuzzRequest, fuzzParameters, request } from './arbitraries.js';
import {
  expectPrototypeClean,
  expectWellFormedAnswer,
  expectWithinCaps,
  stateWithoutJournal,
} from './invariants.js';

/** Builds the Request; undefined when the platform itself refuses it (e.g. TRACE), which is not ours. */
function toRequest(r: FuzzRequest): Request | undefined {
  try {
    return new Request(`http://127.0.0.1${r.path}`, {
      method: r.method,
      headers: r.headers,
      ...(r.body !== undefined && { body: r.body }),
    });
  } catch {
    return undefined;
  }
}

/** Sends one request and checks every per-request invariant. */
async function sendAndCheck(t: TestApp, r: FuzzRequest): Promise<void> {
  const req = toRequest(r);
  if (!req) return;
  const before = stateWithoutJournal(t.store);
  const modeBefore = t.store.connector.mode;
  const journalBefore = t.store.journal.list().at(-1)?.seq ?? 0;
  const res = await t.app.request(req);
  const text = await res.text();
  const label = `${r.method} ${r.path} ${JSON.stringify(r.headers).slice(0, 200)} -> ${res.status}`;
  expectWellFormedAnswer(label, res.status, res.headers.get('content-type'), text, req.method);

  const readOnly = req.method === 'GET' || req.method === 'HEAD';
  if (res.status >= 400 || readOnly) {
    const after = stateWithoutJournal(t.store);
    if (res.status === 503 && modeBefore === 'fail_next_write') {
      // The one state change a refusal makes, by contract: the injected failure is used up.
      expect(t.store.connector.mode, label).toBe('healthy');
      expect(after.replace('"case_mode":"healthy"', '"case_mode":"fail_next_write"'), label).toBe(before);
    } else {
      expect(after, `${label}: a refused or read-only request changed state`).toBe(before);
    }
  }
  // Every request that reached the service is journaled (but the polled health and state reads).
  const polled = readOnly && /^\/(health|state)(\?|$)/.test(r.path);
  const last = t.store.journal.list().at(-1);
  if (!polled && !(req.method === 'POST' && r.path.startsWith('/reset') && res.status === 200)) {
    expect(last?.seq, label).toBe(journalBefore + 1);
    expect(last?.status, label).toBe(res.status);
  }
  expectWithinCaps(t.store);
}

describe('fuzzing every route through app.request()', () => {
  it(
    'answers every hostile request with a well-formed answer; refusals change nothing',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 25 }), async (requests) => {
          const t = makeTestApp();
          for (const r of requests) await sendAndCheck(t, r);
          expect(t.errors, 'an internal error was logged').toEqual([]);
          const state = await t.app.request('/state');
          expect(state.status).toBe(200);
          StateSchema.parse(await state.json());
          expectPrototypeClean();
        }),
        fuzzParameters(150),
      );
    },
    FUZZ_TEST_TIMEOUT_MS,
  );

  it(
    'never exceeds a cap when the lab is one write short of full',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 15 }), async (requests) => {
          const t = makeTestApp();
          for (let i = 0; i < LIMITS.cases - 1; i++) t.store.cases.upsertCase({ event_id: `pre-${i}` }, 0);
          for (let i = 0; i < LIMITS.notifications - 1; i++)
            t.store.notifications.acceptNotification({ message: 'pre' }, 0);
          for (const r of requests) await sendAndCheck(t, r);
          // Then fill whatever room is left (a fuzzed reset may have emptied the lab) and push past it.
          await t.post('/control/case-mode', { mode: 'healthy' });
          for (let i = t.store.cases.size; i <= LIMITS.cases; i++)
            await t.post('/cases', { event_id: `new-${i}` });
          for (let i = t.store.notifications.size; i <= LIMITS.notifications; i++)
            await t.post('/notify', { message: `new-${i}` });
          expectWithinCaps(t.store);
          expect(t.store.cases.size).toBe(LIMITS.cases);
          expect(t.store.notifications.size).toBe(LIMITS.notifications);
          expect((await t.post('/cases', { event_id: 'one-more' })).status).toBe(507);
          expect((await t.post('/notify', { message: 'one-more' })).status).toBe(507);
          expect(t.errors).toEqual([]);
        }),
        fuzzParameters(25),
      );
    },
    FUZZ_TEST_TIMEOUT_MS,
  );

  it(
    'keeps every case within its size cap however updates add fields',
    async () => {
      const update = fc.record({
        key: fc.string({ minLength: 1, maxLength: 6 }),
        size: fc.integer({ min: 1, max: 60_000 }),
      });
      await fc.assert(
        fc.asyncProperty(fc.array(update, { minLength: 1, maxLength: 12 }), async (updates) => {
          const t = makeTestApp();
          for (const { key, size } of updates) {
            const res = await t.post('/cases', { event_id: 'grow', [`f_${key}`]: 'x'.repeat(size) });
            expect([200, 201, 507], JSON.stringify(res.body).slice(0, 200)).toContain(res.status);
            if (res.status === 507) expect(res.body).toMatchObject({ error: { code: 'case_too_large' } });
          }
          expectWithinCaps(t.store);
        }),
        fuzzParameters(30),
      );
    },
    FUZZ_TEST_TIMEOUT_MS,
  );
});

/** Inputs the fuzzer found, kept as plain examples so they are checked on every run whatever the seed. */
describe('found by fuzzing', () => {
  const raw = (t: TestApp, path: string, body: string) =>
    t.postRaw(path, body, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    });

  it.each([
    ['/cases', `{"event_id":"deep","evidence":{"x":${'['.repeat(20_000)}${']'.repeat(20_000)}}}`],
    ['/notify', `{"message":"deep","x":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}}`],
  ])(
    'refuses a body nested thousands deep on %s (it used to be stored, then broke GET /state)',
    async (path, body) => {
      const t = makeTestApp();
      const res = await raw(t, path, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        error: { code: 'invalid_json', message: expect.stringMatching(/deeper/) },
      });
      expect(t.store.cases.size + t.store.notifications.size).toBe(0);
      expect((await t.get('/state')).status).toBe(200);
    },
  );

  it('accepts a body nested 64 deep, the documented limit', async () => {
    const t = makeTestApp();
    const body = `{"event_id":"ok","evidence":${'{"a":'.repeat(63)}1${'}'.repeat(63)}}`;
    expect((await raw(t, '/cases', body)).status).toBe(201);
    expect((await raw(t, '/cases', body.replace('"evidence":', '"evidence":{"b":').concat('}'))).status).toBe(
      400,
    );
  });

  it.each(['{"event_id":"\\ud800"}', '{"event_id":"ok","evidence":{"\\udfff":1}}'])(
    'refuses a lone surrogate escape (%s): it was stored, then the Location header threw',
    async (body) => {
      const t = makeTestApp();
      const res = await raw(t, '/cases', body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: { code: 'invalid_json' } });
      expect(t.store.cases.size).toBe(0);
      expect(t.errors).toEqual([]);
    },
  );

  it('keeps paired surrogates (real astral characters), escaped or not', async () => {
    const t = makeTestApp();
    expect((await raw(t, '/cases', '{"event_id":"\\ud83d\\ude00"}')).status).toBe(201);
    expect((await raw(t, '/cases', '{"event_id":"😀","x":"\\\\ud800 is text here"}')).status).toBe(200);
  });

  it('refuses an update that would grow a case past 64 KiB, and keeps the case as it was', async () => {
    const t = makeTestApp();
    expect((await t.post('/cases', { event_id: 'g', a: 'x'.repeat(40_000) })).status).toBe(201);
    const refused = await t.post('/cases', { event_id: 'g', b: 'x'.repeat(40_000) });
    expect(refused.status).toBe(507);
    expect(refused.body).toMatchObject({ error: { code: 'case_too_large' } });
    expect(t.store.cases.find('g')).toMatchObject({ revision: 1 });
    expect(t.store.cases.find('g')).not.toHaveProperty('b');
    expect((await t.post('/cases', { event_id: 'g', a: 'small' })).status).toBe(200);
  });
});
