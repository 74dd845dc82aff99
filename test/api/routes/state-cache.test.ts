/**
 * GET /state is served from a cache kept per state version, with an ETag and 304. These tests hold the
 * cache to being exact: after every kind of change (a table of them, clock moves and an expiry by time
 * alone included) the ETag is new and the answer equals a fresh serialisation; when nothing changed the
 * ETag is the same, a 304 is answered, and only `now` moves in a 200. A store whose change signal is cut
 * (a mutated copy) is caught by the same check.
 */

import { brotliDecompressSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acceptsBrotli, etagMatches } from '../../../app/api/routes/state.js';
import { fuzzParameters } from '../../fuzz/arbitraries.js';
import { alertCase, blockRequest, makeTestApp, type TestApp } from '../../helpers/test-app.js';

async function read(t: TestApp, etag?: string) {
  const res = await t.app.request('/state', etag ? { headers: { 'if-none-match': etag } } : {});
  return { status: res.status, etag: res.headers.get('etag') ?? '', text: await res.text(), res };
}

/** The answer as a fresh serialisation would give it, with the same `now`. */
const fresh = (t: TestApp) => JSON.stringify(t.store.snapshot());

/**
 * What is wrong with the /state answers around a step that should (or should not) change the state:
 * an empty list when the cache and the ETag are exact.
 */
async function problemsAround(t: TestApp, step: (t: TestApp) => unknown, changes: boolean) {
  const problems: string[] = [];
  const before = await read(t);
  if (before.text !== fresh(t)) problems.push('the answer before the step is not a fresh serialisation');
  await step(t);
  const after = await read(t);
  if (after.text !== fresh(t)) problems.push('the answer after the step is not a fresh serialisation');
  if (changes && after.etag === before.etag) problems.push('the state changed but the ETag did not');
  if (!changes && after.etag !== before.etag) problems.push('nothing changed but the ETag did');
  const revalidated = await read(t, before.etag);
  if (changes && revalidated.status !== 200) problems.push(`a stale ETag got ${revalidated.status}`);
  if (!changes && revalidated.status !== 304) problems.push(`a current ETag got ${revalidated.status}`);
  return problems;
}

const MINUTE = 60_000;
/** Real time passes: the service clock moves with it, no request is made. */
const pass = (t: TestApp, ms: number) => {
  t.time.now += ms;
};
const CHANGES: [string, (t: TestApp) => unknown][] = [
  ['a case is created', (t) => t.post('/cases', alertCase('evt-1'))],
  ['a case is updated', (t) => t.post('/cases', alertCase('evt-0', { result: 'blocked' }))],
  ['a notification is accepted', (t) => t.post('/notify', { message: 'm' })],
  ['an address is blocked', (t) => t.post('/blocklist', blockRequest())],
  ['an address is unblocked', (t) => t.del('/blocklist/203.0.113.66')],
  ['the connector mode is set', (t) => t.post('/control/case-mode', { mode: 'failed' })],
  ['a refused request is journaled', (t) => t.get('/identity/nobody')],
  ['the clock is advanced (nothing expires)', (t) => t.post('/control/clock', { advance_minutes: 1 })],
  ['the service is reset', (t) => t.post('/reset', {})],
  [
    'fail_next_write is used up by a write (the mode turns healthy)',
    async (t) => {
      await t.post('/control/case-mode', { mode: 'fail_next_write' });
      await read(t);
      await t.post('/cases', alertCase('evt-2'));
    },
  ],
  [
    'the clock is advanced past a block (expiry by the trainer)',
    async (t) => {
      await t.post('/blocklist', blockRequest({ expires_minutes: 5 }));
      await read(t);
      await t.post('/control/clock', { advance_minutes: 6 });
    },
  ],
  [
    'a block expires by time alone, no request in between',
    async (t) => {
      await t.post('/blocklist', blockRequest({ expires_minutes: 5 }));
      await read(t);
      pass(t, 5 * MINUTE);
    },
  ],
  [
    'a change made on the store directly, not through a request',
    (t) => t.store.cases.upsertCase({ ...alertCase('evt-9'), result: 'x' }, t.store.now()),
  ],
];
const NON_CHANGES: [string, (t: TestApp) => unknown][] = [
  ['real time passes (nothing expires)', (t) => pass(t, 1234)],
  [
    'GET /health and GET /state (not journaled)',
    async (t) => [await t.get('/health'), await t.get('/state')],
  ],
  ['a block still ahead of its expiry', (t) => pass(t, 4 * MINUTE)],
];

/** An app with a case and a block in it, so updates, unblocks and expiries have something to act on. */
async function seeded() {
  const t = makeTestApp();
  await t.post('/cases', alertCase('evt-0'));
  return t;
}

describe('GET /state: cache, ETag and 304 are exact', () => {
  it.each(CHANGES)('a new ETag and a fresh answer when %s', async (name, step) => {
    const t = await seeded();
    if (name.includes('unblocked')) await t.post('/blocklist', blockRequest());
    expect(await problemsAround(t, step, true)).toEqual([]);
  });

  it.each(NON_CHANGES)('the same ETag and 304 when %s', async (_name, step) => {
    const t = await seeded();
    await t.post('/blocklist', blockRequest({ expires_minutes: 5 }));
    expect(await problemsAround(t, step, false)).toEqual([]);
  });

  it('moves `now` in every 200 while the ETag stays', async () => {
    const t = await seeded();
    const a = await read(t);
    t.time.now += 1500;
    const b = await read(t);
    expect(b.etag).toBe(a.etag);
    expect(JSON.parse(b.text).now).toBe(new Date(t.time.now).toISOString());
    expect(JSON.parse(b.text).now).not.toBe(JSON.parse(a.text).now);
  });

  it('catches a store whose change signal is cut (a mutated copy)', async () => {
    const t = await seeded();
    // The journal no longer tells the store it changed: the cached answer would be stale.
    (t.store.journal as unknown as { onChange: () => void }).onChange = () => {};
    const problems = await problemsAround(t, (x) => x.get('/identity/nobody'), true);
    expect(problems).toContain('the state changed but the ETag did not');
    expect(problems).toContain('the answer after the step is not a fresh serialisation');
  });

  it('answers 304 with the validators and no body; 200 with them and the JSON type', async () => {
    const t = await seeded();
    const ok = await read(t);
    expect(ok.status).toBe(200);
    expect(ok.etag).toMatch(/^W\/"[^"]+"$/);
    expect(ok.res.headers.get('cache-control')).toBe('no-cache');
    expect(ok.res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const notModified = await read(t, ok.etag);
    expect(notModified.status).toBe(304);
    expect(notModified.text).toBe('');
    expect(notModified.etag).toBe(ok.etag);
    expect((await read(t, '"something-else"')).status).toBe(200);
  });

  it('never matches another store’s ETag (a restart counts versions from 0 again)', async () => {
    const a = await read(makeTestApp());
    const b = makeTestApp();
    expect((await read(b, a.etag)).status).toBe(200);
  });

  it('stays exact over random sequences of changes and reads', async () => {
    const op = fc.oneof(
      fc.integer({ min: 0, max: 3 }).map((i) => (t: TestApp) => t.post('/cases', alertCase(`evt-${i}`))),
      fc.constant((t: TestApp) => t.post('/notify', { message: 'm' })),
      fc.constant((t: TestApp) => t.post('/blocklist', blockRequest({ expires_minutes: 1 }))),
      fc.constant((t: TestApp) => t.del('/blocklist/203.0.113.66')),
      fc
        .constantFrom('healthy', 'failed', 'fail_next_write')
        .map((mode) => (t: TestApp) => t.post('/control/case-mode', { mode })),
      fc.integer({ min: 0, max: 90_000 }).map((ms) => (t: TestApp) => pass(t, ms)),
      fc.constant((t: TestApp) => t.get('/health')),
      fc.constant((t: TestApp) => t.post('/reset', {})),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => {
        const t = makeTestApp();
        let last = await read(t);
        for (const step of ops) {
          await step(t);
          const now = await read(t);
          expect(now.text).toBe(fresh(t));
          // The same ETag promises the same state: everything but `now` is equal.
          if (now.etag === last.etag) {
            expect({ ...JSON.parse(now.text), now: '' }).toEqual({ ...JSON.parse(last.text), now: '' });
          }
          last = now;
        }
      }),
      fuzzParameters(60),
    );
  });
});

describe('etagMatches (If-None-Match, weak comparison)', () => {
  it.each([
    ['W/"a-1"', 'W/"a-1"', true],
    ['"a-1"', 'W/"a-1"', true],
    ['W/"x", W/"a-1"', 'W/"a-1"', true],
    ['*', 'W/"a-1"', true],
    ['W/"a-2"', 'W/"a-1"', false],
    ['W/"a-10"', 'W/"a-1"', false],
    ['a-1', 'W/"a-1"', false],
    ['', 'W/"a-1"', false],
  ])('%j against %s: %s', (header, etag, expected) => {
    expect(etagMatches(header, etag)).toBe(expected);
  });
});

describe('GET /state compression', () => {
  const get = (t: TestApp, acceptEncoding?: string) =>
    t.app.request('/state', acceptEncoding ? { headers: { 'accept-encoding': acceptEncoding } } : {});

  it('sends br when asked and the answer is 16 KiB or more; it decodes to the fresh serialisation', async () => {
    const t = makeTestApp();
    for (let i = 0; i < 60; i++) await t.post('/cases', alertCase(`evt-${i}`));
    const res = await get(t, 'gzip, deflate, br');
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(res.headers.get('vary')).toBe('accept-encoding');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.length).toBeLessThan(fresh(t).length / 4);
    expect(brotliDecompressSync(bytes).toString()).toBe(fresh(t));
  });

  /** The br answer decoded, and what is wrong with it: an empty list when it is the fresh state. */
  async function brProblems(t: TestApp, when: string) {
    const res = await get(t, 'br');
    if (res.headers.get('content-encoding') !== 'br') return [`${when}: not br`];
    const decoded = brotliDecompressSync(Buffer.from(await res.arrayBuffer())).toString();
    return decoded === fresh(t) ? [] : [`${when}: the br answer is not the fresh state`];
  }

  // The head is compressed once per state version: after each step the answer must follow the state.
  it.each([...CHANGES, ...NON_CHANGES])('br follows the state when %s', async (name, step) => {
    const t = await seeded();
    for (let i = 1; i < 60; i++) await t.post('/cases', alertCase(`evt-${i}`, { note: 'verdächtig – 🔒' }));
    if (name.includes('unblocked') || name.includes('ahead')) await t.post('/blocklist', blockRequest());
    const problems = await brProblems(t, 'before');
    await step(t);
    if (name.includes('reset')) for (let i = 0; i < 60; i++) await t.post('/cases', alertCase(`evt-${i}`));
    problems.push(...(await brProblems(t, 'after')));
    t.time.now += 1500;
    problems.push(...(await brProblems(t, 'after time passed')));
    expect(problems).toEqual([]);
  });

  it('catches a compressed head kept past its version (a store whose change signal is cut)', async () => {
    const t = makeTestApp();
    for (let i = 0; i < 60; i++) await t.post('/cases', alertCase(`evt-${i}`));
    expect(await brProblems(t, 'before')).toEqual([]);
    (t.store.cases as unknown as { onChange: () => void }).onChange = () => {};
    await t.post('/cases', alertCase('evt-60'));
    expect(await brProblems(t, 'after')).toEqual(['after: the br answer is not the fresh state']);
  });

  it('sends identity when br is not accepted, or the answer is small', async () => {
    const t = makeTestApp();
    const small = await get(t, 'br');
    expect(small.headers.get('content-encoding')).toBeNull();
    expect(await small.text()).toBe(fresh(t));
    for (let i = 0; i < 60; i++) await t.post('/cases', alertCase(`evt-${i}`));
    for (const header of [undefined, 'gzip, deflate', 'br;q=0']) {
      const res = await get(t, header);
      expect(res.headers.get('content-encoding'), String(header)).toBeNull();
      expect(await res.text()).toBe(fresh(t));
    }
  });

  it.each([
    ['br', true],
    ['BR', true],
    ['gzip, deflate, br', true],
    ['br;q=0.5', true],
    ['*', true],
    ['gzip, br;q=0', false],
    ['*;q=0', false],
    ['*, br;q=0', false],
    ['gzip', false],
    ['br;q=x', false],
    ['', false],
  ])('accepts br for %j: %s', (header, expected) => {
    expect(acceptsBrotli(header)).toBe(expected);
  });
});
