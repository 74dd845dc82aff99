/**
 * GET /state on a real socket is written straight from the cached parts (app/api/http/parts-body.ts), not
 * through a Response. These tests hold that path to HTTP framing and to the exact bytes: a state larger
 * than a socket's buffers (so writes queue), non-ASCII text (bytes, not characters), GET, HEAD and GET
 * again pipelined on one keep-alive connection, each answer where the Content-Length says it ends, and
 * no error from the adapter. With Accept-Encoding: br, the same framing, and the body decoded by Node's
 * Brotli and by curl's (--compressed) to the state.
 */
import { execFile } from 'node:child_process';
import { brotliDecompressSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { withoutNow as cutNow } from '../../../app/console/feed.js';
import { rawExchange, startTestServer } from '../../helpers/raw-http.js';

interface Framed {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Splits the bytes of a connection into responses by their Content-Length; HEAD answers carry none. */
function frame(bytes: Buffer, methods: string[]): Framed[] {
  const out: Framed[] = [];
  let at = 0;
  for (const method of methods) {
    const headEnd = bytes.indexOf('\r\n\r\n', at);
    if (headEnd === -1) break;
    const [statusLine = '', ...lines] = bytes.subarray(at, headEnd).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = method === 'HEAD' ? 0 : Number(headers['content-length']);
    out.push({
      status: Number(statusLine.split(' ')[1]),
      headers,
      body: bytes.subarray(headEnd + 4, headEnd + 4 + length),
    });
    at = headEnd + 4 + length;
  }
  if (at !== bytes.length) throw new Error(`${bytes.length - at} bytes after the last response`);
  return out;
}

const request = (method: string, close = false, extra = '') =>
  `${method} /state HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}${close ? 'Connection: close\r\n' : ''}\r\n`;

describe('GET /state written from its cached parts on a socket', () => {
  it('sends the exact state, framed, with HEAD and a next request on the same connection', async () => {
    const server = await startTestServer();
    try {
      await exchange(server);
    } finally {
      await server.close();
    }
  });

  it('sends br as a head compressed once and a tail spliced on; Node and curl decode it', async () => {
    const server = await startTestServer();
    try {
      fill(server.store);
      const br = 'Accept-Encoding: br\r\n';
      const bytes = await rawExchange(
        server.port,
        [request('GET', false, br) + request('HEAD', false, br) + request('GET', true, br)],
        { timeoutMs: 10_000, raw: true },
      );
      const answers = frame(bytes, ['GET', 'HEAD', 'GET']);
      const expected = withoutNow(JSON.stringify(server.store.snapshot()));
      for (const res of [answers[0], answers[2]]) {
        expect(res?.headers['content-encoding']).toBe('br');
        expect(Number(res?.headers['content-length'])).toBe(res?.body.length);
        expect(withoutNow(brotliDecompressSync(res?.body ?? Buffer.alloc(0)).toString('utf8'))).toBe(
          expected,
        );
      }
      expect(answers[1]?.headers['content-length']).toBe(answers[0]?.headers['content-length']);
      const curled = await curlCompressed(`http://127.0.0.1:${server.port}/state`);
      expect(curled.encoding).toBe('br');
      expect(withoutNow(curled.body)).toBe(expected);
      // The same decode on a broken answer (its last block cut off) fails.
      const cut = answers[0]?.body.subarray(0, -1) ?? Buffer.alloc(0);
      expect(() => brotliDecompressSync(cut)).toThrow();
    } finally {
      await server.close();
    }
  });
});

/** About 2.4 MB of cases with non-ASCII text, and a notification. */
function fill(store: Awaited<ReturnType<typeof startTestServer>>['store']) {
  for (let i = 0; i < 600; i++) {
    store.cases.upsertCase(
      { event_id: `evt-${i}`, note: `Zugriff verdächtig – ${'é'.repeat(2000)} 🔒`, n: i },
      store.now(),
    );
  }
  store.notifications.acceptNotification({ message: 'approve? ✅' }, store.now());
}

/** The state's JSON without `now`, to compare answers read at different times; `now` must be last. */
function withoutNow(json: string): string {
  expect(json).toMatch(/,"now":"[^"]+"}$/);
  return cutNow(json, (JSON.parse(json) as { now: string }).now);
}

/** GET with curl --compressed (curl's own Brotli decoder): the decoded body and the Content-Encoding. */
function curlCompressed(url: string): Promise<{ encoding: string; body: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      'curl',
      ['-sS', '--fail', '--compressed', '-H', 'Accept-Encoding: br', '-D', '-', '--max-time', '10', url],
      { maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
      (err, out) => {
        if (err) return reject(err);
        const split = out.indexOf('\r\n\r\n');
        const encoding = /^content-encoding:\s*(\S+)/im.exec(out.slice(0, split))?.[1] ?? '';
        resolve({ encoding, body: out.slice(split + 4) });
      },
    );
  });
}

/** GET, HEAD and GET pipelined on one connection to a server holding a 2.4 MB state. */
async function exchange(server: Awaited<ReturnType<typeof startTestServer>>) {
  const { store } = server;
  // About 2.4 MB, several times a loopback socket's buffer, so most of it waits in Node's queue.
  fill(store);
  // @hono/node-server reports a response it could not write (headers sent twice) on console.error.
  const adapterErrors = vi.spyOn(console, 'error').mockImplementation(() => {});
  const methods = ['GET', 'HEAD', 'GET'];
  const bytes = await rawExchange(server.port, [request('GET') + request('HEAD') + request('GET', true)], {
    timeoutMs: 10_000,
    raw: true,
  });
  const [first, head, last] = frame(bytes, methods);
  const expected = JSON.stringify(store.snapshot());
  for (const res of [first, last]) {
    expect(res?.status).toBe(200);
    const text = res?.body.toString('utf8') ?? '';
    expect(Number(res?.headers['content-length'])).toBe(Buffer.byteLength(text));
    expect({ ...JSON.parse(text), now: '' }).toEqual({ ...JSON.parse(expected), now: '' });
    expect(res?.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res?.headers.etag).toBe(store.etagAt(store.now()));
  }
  expect(Buffer.byteLength(expected)).toBeGreaterThan(2_000_000);
  expect(head?.status).toBe(200);
  expect(head?.headers['content-length']).toBe(first?.headers['content-length']);
  expect(head?.body.length).toBe(0);
  expect(adapterErrors).not.toHaveBeenCalled();
  adapterErrors.mockRestore();
}
