import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ExchangeOptions,
  parseResponses,
  post,
  rawExchange,
  startTestServer,
} from '../../helpers/raw-http.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
let server: Server;

beforeEach(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  await server.close();
});

const only = async (chunks: (string | Buffer)[], options?: ExchangeOptions) => {
  const responses = parseResponses(await rawExchange(server.port, chunks, options));
  expect(responses).toHaveLength(1);
  return responses[0] as (typeof responses)[number];
};

describe('the POST rules at the socket', () => {
  it('answers a chunked body without Content-Length with 411 and closes', async () => {
    const res = await only([
      'POST /notify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      'f\r\n{"message":"m"}\r\n0\r\n\r\n',
    ]);
    expect(res.status).toBe(411);
    expect(res.json).toMatchObject({ error: { code: 'length_required' } });
    expect(res.headers.connection).toBe('close');
    expect(server.store.notifications.size).toBe(0);
  });

  it.each([['abc'], ['1,2'], ['-1'], ['+5'], ['5 5']])(
    'answers Content-Length %s in the JSON error shape, though Node’s parser refuses first',
    async (value) => {
      const res = await only([
        `POST /notify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${value}\r\n\r\n{}`,
      ]);
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.json).toMatchObject({ error: { code: 'invalid_content_length' } });
    },
  );

  it('refuses Content-Length together with chunked encoding', async () => {
    const res = await only([
      'POST /notify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 15\r\nTransfer-Encoding: chunked\r\n\r\nf\r\n{"message":"m"}\r\n0\r\n\r\n',
    ]);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      error: { code: expect.stringMatching(/invalid_content_length|bad_request/) },
    });
    expect(server.store.notifications.size).toBe(0);
  });

  it('decides 413 from the header, before any of the body is sent', async () => {
    const res = await only([
      'POST /notify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n',
    ]);
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ error: { code: 'payload_too_large' } });
    expect(res.headers.connection).toBe('close');
  });

  it('never acts on a body cut short by the client', async () => {
    const text = await rawExchange(
      server.port,
      [
        'POST /notify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{"message":"half',
      ],
      { halfClose: true },
    );
    expect(text).not.toMatch(/^HTTP\/1.1 2/);
    await new Promise((r) => setTimeout(r, 50));
    expect(server.store.notifications.size).toBe(0);
  });

  it('never acts on a body cut short by a reset connection', async () => {
    await rawExchange(
      server.port,
      [
        'POST /notify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{"message":"half',
      ],
      { timeoutMs: 100 },
    );
    await new Promise((r) => setTimeout(r, 50));
    expect(server.store.notifications.size).toBe(0);
    // The request is settled, not left waiting for bytes that will never come: it is journaled as refused.
    expect(server.store.journal.list()).toEqual([
      expect.objectContaining({ method: 'POST', path: '/notify', status: 400 }),
    ]);
  });

  it('never acts on a body that runs past its Content-Length', async () => {
    const text = await rawExchange(server.port, [
      'POST /notify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n{"message":"m"}, "more": "bytes that do not belong to any request"}',
    ]);
    await new Promise((r) => setTimeout(r, 50));
    expect(server.store.notifications.size).toBe(0);
    const responses = parseResponses(text);
    expect(responses.every((r) => r.status >= 400)).toBe(true);
    expect(responses.at(-1)?.json).toMatchObject({ error: { code: expect.any(String) } });
  });

  it('answers garbage in the JSON error shape', async () => {
    const res = await only(['HELLO\r\n\r\n']);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: { code: 'bad_request' } });
  });

  it('serves pipelined requests in order', async () => {
    const responses = parseResponses(
      await rawExchange(server.port, [
        `${post('/notify', '{"message":"one"}')}GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n${post('/notify', '{"message":"two"}', 'Connection: close\r\n')}`,
      ]),
    );
    expect(responses.map((r) => r.status)).toEqual([202, 200, 202]);
    expect(server.store.notifications.list().map((n) => n.message)).toEqual(['one', 'two']);
  });
});

describe('concurrency over real HTTP', () => {
  it('makes one case from 50 parallel writes of one new event, and one entry from 50 blocks', async () => {
    const base = `http://127.0.0.1:${server.port}`;
    const send = (path: string, body: unknown) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const cases = await Promise.all(Array.from({ length: 50 }, () => send('/cases', { event_id: 'race' })));
    expect(cases.filter((r) => r.status === 201)).toHaveLength(1);
    expect(cases.filter((r) => r.status === 200)).toHaveLength(49);
    const blocks = await Promise.all(
      Array.from({ length: 50 }, () =>
        send('/blocklist', { ip: '203.0.113.66', event_id: 'race', expires_minutes: 10 }),
      ),
    );
    expect(blocks.filter((r) => r.status === 201)).toHaveLength(1);
    expect(blocks.filter((r) => r.status === 409)).toHaveLength(49);
    expect(server.store.cases.size).toBe(1);
    expect(server.store.blocklist.active(Date.now())).toHaveLength(1);
  });
});
