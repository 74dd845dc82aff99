/**
 * Generators of hostile requests for the fuzz tests: every route and path parameter, bodies that are
 * almost right and bodies that are nothing like right, odd headers, lengths that lie, encodings that
 * are not UTF-8, deep nesting, huge numbers, duplicate keys, odd Unicode and encoded paths.
 */
import fc from 'fast-check';

/**
 * Run settings: bounded by default so `make test` stays fast; FUZZ_SEED reproduces a failure (the failing
 * seed and path are printed by fast-check), FUZZ_RUNS scales a run up for a longer hunt.
 */
/** vitest's limit for one fuzz test: the default suite stays bounded, a long hunt gets room. */
export const FUZZ_TEST_TIMEOUT_MS = process.env.FUZZ_RUNS ? 600_000 : 20_000;

export function fuzzParameters(defaultRuns: number): fc.Parameters<unknown> {
  const seed = process.env.FUZZ_SEED;
  const runs = process.env.FUZZ_RUNS;
  return {
    numRuns: runs ? Number(runs) : defaultRuns,
    ...(seed !== undefined && seed !== '' && { seed: Number(seed) }),
    ...(process.env.FUZZ_PATH && { path: process.env.FUZZ_PATH }),
    interruptAfterTimeLimit: Number(process.env.FUZZ_TIME_LIMIT_MS ?? (runs ? 500_000 : 12_000)),
    markInterruptAsFailure: false,
  };
}

/** Text that is hard on parsers: controls, NUL, RTL marks, combining marks, astral, BOM, quote/backslash. */
const oddChar = fc.constantFrom(
  '\u0000',
  '\u0007',
  '\u001f',
  '\u007f',
  '\u0085',
  '\u00a0',
  '\u200b',
  '\u200e',
  '\u202e',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\ufffd',
  '\uffff',
  'e\u0301',
  '😀',
  '𝔘',
  '"',
  '\\',
  '/',
  '%',
  '?',
  '#',
  '..',
  '<',
  '$',
  '{',
);
export const oddString = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: oddChar, maxLength: 8 }),
  fc.constantFrom(
    '',
    ' ',
    'lab-admin',
    'LAB-ADMIN',
    'lab-admin ',
    '__proto__',
    'constructor',
    'hasOwnProperty',
    'evt-1001',
    '203.0.113.66',
    '203.0.113.066',
    '::ffff:203.0.113.66',
    '::1',
    'fe80::1%eth0',
    '1.2.3',
    'a'.repeat(128),
    'a'.repeat(129),
    'x'.repeat(3000),
  ),
);

/** A path parameter as a client might send it: plain, percent-encoded, broken percent-encoding. */
export const pathParam = fc.oneof(
  oddString.map((s) => encodeURIComponent(s)),
  oddString.filter((s) => /^[A-Za-z0-9._~:@!$&'()*+,;=-]*$/.test(s)),
  fc.constantFrom(
    '%',
    '%zz',
    '%E0%A4%A',
    '%ED%A0%80',
    '%C0%AF',
    '%00',
    '%2F',
    '..%2F..%2Fstate',
    '%252F',
    'lab-admin%20',
    '203.0.113.66%00',
    '%32%30%33.0.113.66',
    '[::1]',
  ),
);

export const ROUTES = [
  '/health',
  '/identity/:p',
  '/cases',
  '/cases/:p',
  '/notify',
  '/blocklist',
  '/blocklist/:p',
  '/control/case-mode',
  '/control/clock',
  '/state',
  '/reset',
  '/openapi.json',
] as const;

export const path = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.tuple(fc.constantFrom(...ROUTES), pathParam).map(([r, p]) => r.replace(':p', p)),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom(...ROUTES),
        fc.constantFrom('/', '//', '?', '?a=%', '?x=1&x=2', '/..', '/./', '#f'),
      )
      .map(([r, suffix]) => r.replace(':p', 'lab-admin') + suffix),
  },
  { weight: 1, arbitrary: fc.array(pathParam, { maxLength: 4 }).map((segments) => `/${segments.join('/')}`) },
);

export const method = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('GET', 'POST', 'DELETE') },
  { weight: 1, arbitrary: fc.constantFrom('HEAD', 'PUT', 'PATCH', 'OPTIONS', 'TRACE', 'post', 'M-SEARCH') },
);

const hugeNumber = fc.constantFrom(
  '1e999',
  '-1e999',
  '1e-999',
  '-0',
  '123456789012345678901234567890',
  '9007199254740993',
  '0.1e1',
  '10.0',
  '1E1',
  '5e0',
);

/** JSON text of a value nested `depth` deep, the way an attacker builds it (no recursion to build). */
const deepText = fc
  .tuple(fc.integer({ min: 10, max: 20_000 }), fc.constantFrom('[', '{"a":'))
  .map(([depth, open]) => `${open.repeat(depth)}1${(open === '[' ? ']' : '}').repeat(depth)}`);

/** A value for a field: the right type, the wrong type, odd strings, numbers JSON cannot keep exactly. */
const fieldText: fc.Arbitrary<string> = fc.oneof(
  oddString.map((s) => JSON.stringify(s)),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.integer({ min: -5, max: 100 }).map(String),
  hugeNumber,
  deepText,
  fc.constantFrom(
    'null',
    'true',
    '[]',
    '{}',
    '"\\ud800"',
    '"\\udfff x"',
    '"\\u0000"',
    '{"__proto__":{"p":1}}',
  ),
);

/** Field names each POST route cares about, plus service-owned and hostile names. */
const FIELDS = [
  'event_id',
  'evidence',
  'approver',
  'result',
  'final_action',
  'verification',
  'expiry',
  'rollback',
  'message',
  'recipient',
  'severity',
  'ip',
  'expires_minutes',
  'mode',
  'advance_minutes',
  'id',
  'status',
  'revision',
  'created_at',
  '__proto__',
  'constructor',
  '',
];

/** A JSON object's text with chosen fields, allowing duplicate keys (JSON.parse keeps the last). */
const objectText = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom(...FIELDS), oddString), fieldText), { maxLength: 8 })
  .map((pairs) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`);

/** Extra top-level fields (kept as sent on cases and notifications) with hostile values. */
const extraFields = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom(...FIELDS), oddString), fieldText), { maxLength: 3 })
  .map((pairs) => pairs.map(([k, v]) => `,${JSON.stringify(k)}:${v}`).join(''));

/** A route's valid body, with hostile extra fields appended (duplicates of its own fields included). */
const withExtras = (base: fc.Arbitrary<object>) =>
  fc.tuple(base, extraFields).map(([value, extra]) => {
    const text = JSON.stringify(value);
    return text === '{}' ? `{${extra.slice(1)}}` : `${text.slice(0, -1)}${extra}}`;
  });

/** Bodies valid for each POST route (before the extras), so fuzzed sequences change state and reach caps. */
export const VALID_BODIES: Record<string, fc.Arbitrary<string>> = {
  '/cases': withExtras(
    fc
      .tuple(
        fc.constantFrom('evt-1', 'evt-2', 'evt-3', 'évt-ü', 'a/b?c', '😀'),
        fc.jsonValue({ maxDepth: 2 }),
      )
      .map(([id, evidence]) => ({ event_id: id, evidence: { v: evidence }, result: 'pending' })),
  ),
  '/notify': withExtras(oddString.map((m) => ({ message: `m${m}`, severity: 'high' }))),
  '/blocklist': withExtras(
    fc
      .tuple(fc.constantFrom('203.0.113.66', '198.51.100.7', '::1'), fc.integer({ min: 0, max: 61 }))
      .map(([ip, minutes]) => ({ ip, event_id: 'evt-1', expires_minutes: minutes })),
  ),
  '/control/case-mode': withExtras(
    fc.constantFrom('healthy', 'failed', 'fail_next_write', 'broken').map((mode) => ({ mode })),
  ),
  '/control/clock': withExtras(fc.integer({ min: 0, max: 1500 }).map((m) => ({ advance_minutes: m }))),
  '/reset': fc.oneof(fc.constant('{}'), withExtras(fc.constant({}))),
};
const validBodyText = fc.oneof(...Object.values(VALID_BODIES));

const bodyText = fc.oneof(
  { weight: 4, arbitrary: validBodyText },
  { weight: 4, arbitrary: objectText },
  { weight: 1, arbitrary: fieldText },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '{', '{"a":1', '{"a":1}}', '{} {}', '\ufeff{}', 'nul') },
);

/** A body's bytes: UTF-8 mostly, sometimes UTF-16, Latin-1 or random bytes (invalid UTF-8). */
export const bodyBytes = fc.oneof(
  { weight: 8, arbitrary: bodyText.map((t) => Buffer.from(t, 'utf8')) },
  { weight: 1, arbitrary: bodyText.map((t) => Buffer.from(t, 'utf16le')) },
  { weight: 1, arbitrary: bodyText.map((t) => Buffer.from(t, 'latin1')) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)) },
);

export const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/json;charset=latin1',
      'application/jsonx',
      'application/json-patch+json',
      'text/json',
      'text/plain',
      'multipart/form-data; boundary=x',
      '',
      ';',
      'application/json, text/plain',
    ),
  },
);

/** Content-Length as sent: right, off by one, absent, malformed, over the limit, absurd. */
export const contentLength = (actual: number) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant(String(actual)) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        undefined,
        String(actual + 1),
        String(Math.max(0, actual - 1)),
        '0',
        '-1',
        `0${actual}`,
        `${actual}.0`,
        ' 5',
        '65537',
        '99999999999999999999',
        '1e3',
        '0x10',
      ),
    },
  );

/** Extra headers: browser-ish, proxy-ish, odd names and values (only what a Headers object accepts). */
export const extraHeaders = fc.dictionary(
  fc.constantFrom(
    'accept',
    'accept-encoding',
    'content-encoding',
    'x-forwarded-for',
    'x-real-ip',
    'forwarded',
    'x-http-method-override',
    'transfer-encoding',
    'expect',
    'cookie',
    'authorization',
    'x-odd',
    'range',
  ),
  fc.oneof(
    fc.string({ unit: 'grapheme-ascii', maxLength: 40 }),
    fc.constantFrom('gzip', 'chunked', '100-continue', '127.0.0.1', 'DELETE', 'bytes=0-1', 'a'.repeat(4000)),
  ),
  { maxKeys: 3 },
);

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

/** Anything goes: any method, any path, any body. */
const scattered: fc.Arbitrary<FuzzRequest> = fc
  .tuple(method, path, bodyBytes, contentType, extraHeaders, fc.boolean())
  .chain(([m, p, body, type, extra, withType]) =>
    contentLength(body.length).map((length): FuzzRequest => {
      const hasBody = m !== 'GET' && m !== 'HEAD';
      const headers: Record<string, string> = { ...extra };
      if (hasBody && (withType || m === 'POST')) headers['content-type'] = type;
      if (hasBody && length !== undefined) headers['content-length'] = length;
      return { method: m, path: p, headers, body: hasBody ? body : undefined };
    }),
  );

const GET_PATHS = ['/health', '/identity/:p', '/cases/:p', '/blocklist/:p', '/state', '/openapi.json'];

/** Aimed: the right method on a real route, so that bodies and parameters reach the handlers. */
const aimed: fc.Arbitrary<FuzzRequest> = fc.oneof(
  fc
    .tuple(fc.constantFrom(...Object.keys(VALID_BODIES)), fc.boolean(), fc.boolean(), extraHeaders)
    .chain(([p, wellFramed, valid, extra]) =>
      (valid ? (VALID_BODIES[p] ?? validBodyText) : bodyText).chain((text) => {
        const body = Buffer.from(text, 'utf8');
        const framing = wellFramed
          ? fc.constant({ 'content-type': 'application/json', 'content-length': String(body.length) })
          : fc.tuple(contentType, contentLength(body.length)).map(([type, length]) => ({
              'content-type': type,
              ...(length !== undefined && { 'content-length': length }),
            }));
        return framing.map(
          (h): FuzzRequest => ({ method: 'POST', path: p, headers: { ...extra, ...h }, body }),
        );
      }),
    ),
  fc
    .tuple(
      fc.constantFrom(...GET_PATHS),
      pathParam,
      fc.constantFrom('GET', 'GET', 'DELETE', 'HEAD'),
      extraHeaders,
    )
    .map(
      ([p, param, m, headers]): FuzzRequest => ({
        method: p.startsWith('/blocklist/') || m !== 'DELETE' ? m : 'GET',
        path: p.replace(':p', param),
        headers,
        body: undefined,
      }),
    ),
);

export const request: fc.Arbitrary<FuzzRequest> = fc.oneof(
  { weight: 3, arbitrary: aimed },
  { weight: 2, arbitrary: scattered },
);
