/**
 * Property-based fuzzing over a real socket: the smaller, slower portion, for what app.request() cannot
 * reach (Node's HTTP parser and the server's clientError answer). Raw bytes: broken request lines, bare
 * LF, duplicate or conflicting Content-Length and Transfer-Encoding, header floods, raw non-ASCII bytes,
 * pipelining, bodies that lie about their length. Each exchange half-closes, so none waits on a timeout.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawExchange, startTestServer } from '../helpers/raw-http.js';
import {
  bodyBytes,
  FUZZ_TEST_TIMEOUT_MS,
  fuzzParameters,
  method,
  path,
  VALID_BODIES,
} from './arbitraries.js';
import { expectWellFormedAnswer, expectWithinCaps, stateWithoutJournal } from './invariants.js';

let server: Awaited<ReturnType<typeof startTestServer>>;
const errors: unknown[] = [];
beforeAll(async () => {
  server = await startTestServer({ logError: (err) => errors.push(err) });
});
afterAll(async () => {
  await server.close();
});

const token = fc.oneof(
  method.filter((m) => m !== 'HEAD'),
  fc.constantFrom('', 'G ET', 'GET\u0000', 'CONNECT', 'PRI', 'GÉT'),
);
const target = fc.oneof(
  { weight: 6, arbitrary: path },
  {
    weight: 1,
    arbitrary: fc.constantFrom('*', 'http://127.0.0.1/health', '//x', '', 'health', '/a b', '/é', '/\u0000'),
  },
);
const version = fc.oneof(
  { weight: 8, arbitrary: fc.constant('HTTP/1.1') },
  { weight: 2, arbitrary: fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1 ', 'http/1.1', '', 'HTTP/9') },
);
const hostLine = fc.constantFrom(
  'Host: 127.0.0.1',
  'Host: 127.0.0.1',
  'Host: localhost:8081',
  'Host: evil.example',
  'Host: 127.0.0.1\r\nHost: evil.example',
  '',
);
/** Header lines: framing conflicts, floods, folding, raw bytes, no colon, odd names. */
const headerLine = fc.oneof(
  fc.constantFrom(
    'Content-Length: 0',
    'Content-Length: 5',
    'Content-Length: 5\r\nContent-Length: 6',
    'Content-Length: 5, 5',
    'Content-Length: -1',
    'Content-Length: 99999999999999999999999',
    'Transfer-Encoding: chunked',
    'Transfer-Encoding: gzip, chunked',
    'Transfer-Encoding: chunked, gzip',
    'Transfer-Encoding:  chunked',
    'Transfer-Encoding: identity',
    'Content-Type: application/json',
    'Content-Type: text/plain',
    'Connection: close',
    'Connection: keep-alive, Upgrade',
    'Upgrade: websocket',
    'Origin: http://evil.example',
    'Expect: 100-continue',
    'Expect: something-else',
    'X-Folded: a\r\n  continued',
    'no colon here',
    ': empty name',
    'Bad Name: x',
    'X-Nul: a\u0000b',
    'X-Latin: \u00e9\u00ff',
    `X-Big: ${'a'.repeat(20_000)}`,
  ),
  fc.string({ unit: 'binary-ascii', maxLength: 30 }).map((v) => `X-Fuzz: ${v}`),
);

const rawRequest = fc
  .tuple(
    token,
    target,
    version,
    hostLine,
    fc.array(headerLine, { maxLength: 4 }),
    fc.oneof(
      bodyBytes,
      fc
        .constantFrom(...Object.values(VALID_BODIES))
        .chain((a) => a)
        .map((t) => Buffer.from(t)),
    ),
    fc.boolean(),
    fc.constantFrom('\r\n', '\r\n', '\r\n', '\n'),
  )
  .map(([m, t, v, host, lines, body, frame, eol]) => {
    const head = [`${m} ${t} ${v}`.trimEnd(), host, ...lines].filter(Boolean);
    if (frame) head.push('Content-Type: application/json', `Content-Length: ${body.length}`);
    return Buffer.concat([Buffer.from(`${head.join(eol)}${eol}${eol}`, 'latin1'), body]);
  });

/** Splits a byte stream of responses, and returns whatever is left that is not a whole response. */
function splitResponses(bytes: Buffer) {
  const out: { status: number; headers: Record<string, string>; body: string }[] = [];
  let rest = bytes;
  while (rest.length > 0) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd === -1 || !rest.subarray(0, 9).equals(Buffer.from('HTTP/1.1 '))) break;
    const [statusLine = '', ...lines] = rest.subarray(0, headEnd).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    out.push({
      status: Number(statusLine.split(' ')[1]),
      headers,
      body: rest.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8'),
    });
    rest = rest.subarray(headEnd + 4 + length);
  }
  return { responses: out, leftover: rest };
}

async function exchange(chunks: Buffer[]): Promise<Buffer> {
  return Buffer.from(await rawExchange(server.port, chunks, { halfClose: true, timeoutMs: 3000 }), 'utf8');
}

describe('fuzzing raw HTTP over a real socket', () => {
  it(
    'answers every request stream in the JSON error shape, stays up, and stores nothing refused',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(rawRequest, { minLength: 1, maxLength: 3 }), async (requests) => {
          const before = stateWithoutJournal(server.store);
          const sent = Buffer.concat(requests);
          const text = await rawExchange(server.port, [sent], { halfClose: true, timeoutMs: 3000 });
          const { responses, leftover } = splitResponses(Buffer.from(text, 'utf8'));
          const label = JSON.stringify(sent.toString('latin1').slice(0, 400));
          expect(leftover.toString('latin1'), `${label}: bytes that are not a response`).toBe('');
          const final = responses.filter((r) => r.status >= 200);
          for (const r of final)
            expectWellFormedAnswer(label, r.status, r.headers['content-type'], r.body, 'GET');
          const wrote = final.some(
            (r) => r.status >= 200 && r.status < 300 && /^post /i.test(sent.toString('latin1')),
          );
          // A stream whose requests were all refused or only read leaves the state as it was.
          if (!final.some((r) => r.status < 300) || !wrote) {
            const after = stateWithoutJournal(server.store);
            if (!/fail_next_write/.test(before)) expect(after, label).toBe(before);
          }
          expectWithinCaps(server.store);
          expect(errors, 'an internal error was logged').toEqual([]);
        }),
        fuzzParameters(60),
      );
      // The process is still up and serving.
      const health = await fetch(`http://127.0.0.1:${server.port}/health`);
      expect(health.status).toBe(200);
    },
    FUZZ_TEST_TIMEOUT_MS,
  );

  it(
    'counts exactly one stored notification per 202 across pipelined, fuzzed POST /notify requests',
    async () => {
      const notify = fc
        .tuple(VALID_BODIES['/notify'] ?? fc.constant('{}'), fc.integer({ min: -2, max: 2 }), fc.boolean())
        .map(([text, skew, close]) => {
          const body = Buffer.from(text);
          return Buffer.concat([
            Buffer.from(
              `POST /notify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Math.max(0, body.length + skew)}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`,
            ),
            body,
          ]);
        });
      await fc.assert(
        fc.asyncProperty(fc.array(notify, { minLength: 1, maxLength: 4 }), async (requests) => {
          const before = server.store.notifications.size;
          const { responses } = splitResponses(await exchange([Buffer.concat(requests)]));
          const accepted = responses.filter((r) => r.status === 202).length;
          for (const r of responses)
            expectWellFormedAnswer('notify', r.status, r.headers['content-type'], r.body, 'POST');
          await new Promise((r) => setTimeout(r, 5));
          expect(server.store.notifications.size - before).toBe(accepted);
          if (server.store.notifications.size > 900) server.store.reset();
        }),
        fuzzParameters(40),
      );
    },
    FUZZ_TEST_TIMEOUT_MS,
  );
});
