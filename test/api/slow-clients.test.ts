/**
 * Slow and broken clients over real sockets: slow headers, slow bodies, idle keep-alive, connections
 * that never send, half-closed and reset sockets, pipelining, many idle connections. The server runs
 * with short timeouts (and a short check interval: Node only checks the headers and request timeouts
 * every CONNECTIONS_CHECK_INTERVAL_MS), and a well-behaved client must keep being served meanwhile.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../app/api/config.js';
import { parseResponses, post, rawExchange, startTestServer } from '../helpers/raw-http.js';

const TIMEOUTS = {
  HEADERS_TIMEOUT_MS: '400',
  REQUEST_TIMEOUT_MS: '800',
  KEEP_ALIVE_TIMEOUT_MS: '300',
  CONNECTIONS_CHECK_INTERVAL_MS: '50',
};
/** Scheduling slack on a loaded 2-core machine. */
const SLACK_MS = 700;

type Server = Awaited<ReturnType<typeof startTestServer>>;
const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
const start = async (env: Record<string, string> = TIMEOUTS) => {
  const s = await startTestServer({ env });
  servers.push(s);
  return s;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An open socket that records what it receives and when the server closed it. */
async function open(port: number) {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  const received: Buffer[] = [];
  let closedAt: number | undefined;
  socket.on('data', (d) => received.push(d));
  socket.on('error', () => {});
  const closed = new Promise<number>((resolve) =>
    socket.on('close', () => {
      closedAt = performance.now();
      resolve(closedAt);
    }),
  );
  await new Promise((r) => socket.once('connect', r));
  return {
    socket,
    openedAt: performance.now(),
    closed,
    text: () => Buffer.concat(received).toString('utf8'),
    isClosed: () => closedAt !== undefined,
  };
}

/** Writes `text` one byte every `gapMs` until done or the socket closes. */
async function trickle(socket: Socket, text: string, gapMs: number): Promise<void> {
  for (const ch of text) {
    if (socket.destroyed || socket.writableEnded) return;
    socket.write(ch);
    await sleep(gapMs);
  }
}

/** GET /health on a fresh connection, timed. */
async function timedHealth(port: number): Promise<{ status: number | undefined; ms: number }> {
  const t0 = performance.now();
  const [res] = parseResponses(
    await rawExchange(port, ['GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n']),
  );
  return { status: res?.status, ms: performance.now() - t0 };
}

describe('slow clients', () => {
  it('cuts off headers sent too slowly (slowloris) with 408 in the JSON shape, serving others meanwhile', async () => {
    const { port } = await start();
    const slow = await open(port);
    const dripping = trickle(
      slow.socket,
      `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Drip: ${'a'.repeat(200)}`,
      40,
    );
    const meanwhile: number[] = [];
    while (!slow.isClosed() && performance.now() - slow.openedAt < 400 + SLACK_MS * 2) {
      const { status, ms } = await timedHealth(port);
      expect(status).toBe(200);
      meanwhile.push(ms);
      await sleep(50);
    }
    const closedAt = await slow.closed;
    await dripping;
    expect(closedAt - slow.openedAt).toBeLessThan(400 + SLACK_MS);
    const [res] = parseResponses(slow.text());
    expect(res?.status).toBe(408);
    expect(res?.json).toMatchObject({ error: { code: 'request_timeout' } });
    expect(meanwhile.length).toBeGreaterThan(2);
    expect(Math.max(...meanwhile)).toBeLessThan(300);
  });

  it('cuts off a body sent too slowly with 408 and never acts on it', async () => {
    const { port, store } = await start();
    const slow = await open(port);
    const body = JSON.stringify({ message: 'sent a byte at a time' });
    slow.socket.write(
      `POST /notify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    const dripping = trickle(slow.socket, body, 60);
    const closedAt = await slow.closed;
    await dripping;
    expect(closedAt - slow.openedAt).toBeLessThan(800 + SLACK_MS);
    const responses = parseResponses(slow.text());
    expect(responses.map((r) => r.status)).toEqual([408]);
    expect(responses[0]?.json).toMatchObject({ error: { code: 'request_timeout' } });
    await sleep(50);
    expect(store.notifications.size).toBe(0);
    expect(store.journal.list().filter((e) => e.status < 300)).toEqual([]);
  });

  it('closes a connection that never sends a byte, after the headers timeout', async () => {
    const { port } = await start();
    const silent = await open(port);
    const closedAt = await silent.closed;
    expect(closedAt - silent.openedAt).toBeLessThan(400 + SLACK_MS);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout, and not before', async () => {
    const { port } = await start();
    const client = await open(port);
    client.socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await sleep(150);
    expect(client.isClosed()).toBe(false);
    client.socket.write('GET /identity/lab-admin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const answeredAt = performance.now();
    const closedAt = await client.closed;
    expect(parseResponses(client.text()).map((r) => r.status)).toEqual([200, 200]);
    expect(closedAt - answeredAt).toBeGreaterThan(200);
    // Node 20 keeps an idle socket 1 s past keepAliveTimeout (a buffer against racing the client's reuse).
    expect(closedAt - answeredAt).toBeLessThan(300 + 1000 + SLACK_MS);
  });

  it('holds many idle connections without slowing anyone down, then closes them all', async () => {
    const { port, running } = await start();
    const idle = await Promise.all(Array.from({ length: 200 }, () => open(port)));
    const timings: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { status, ms } = await timedHealth(port);
      expect(status).toBe(200);
      timings.push(ms);
    }
    expect(Math.max(...timings)).toBeLessThan(300);
    const closed = await Promise.all(idle.map((c) => c.closed));
    expect(Math.max(...closed) - Math.min(...idle.map((c) => c.openedAt))).toBeLessThan(400 + SLACK_MS * 2);
    const connections = () =>
      new Promise<number>((resolve, reject) =>
        running.server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
      );
    for (let i = 0; i < 50 && (await connections()) > 0; i++) await sleep(20);
    expect(await connections()).toBe(0);
  });
});

describe('broken clients', () => {
  it('answers a request whose client half-closed right after sending it', async () => {
    const { port, store } = await start();
    const text = await rawExchange(port, [post('/notify', '{"message":"then FIN"}')], { halfClose: true });
    expect(parseResponses(text).map((r) => r.status)).toEqual([202]);
    expect(store.notifications.size).toBe(1);
  });

  it('survives a storm of sockets reset mid-headers and mid-body, storing nothing from them', async () => {
    const { port, store } = await start();
    const body = '{"message":"never complete"}';
    const partials = [
      'GET /identity/lab-admin HTTP/1.1\r\nHost: 127.',
      `POST /notify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
      `POST /cases HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"event_id":"x"}`,
    ];
    await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const c = await open(port);
        c.socket.write(partials[i % partials.length] ?? '');
        await sleep(i % 5);
        if (i % 2 === 0) c.socket.resetAndDestroy();
        else c.socket.destroy();
      }),
    );
    await sleep(100);
    expect((await timedHealth(port)).status).toBe(200);
    expect(store.notifications.size).toBe(0);
    expect(store.cases.size).toBe(0);
  });

  it('answers 50 pipelined requests in order on one connection', async () => {
    const { port, store } = await start();
    const requests = Array.from({ length: 50 }, (_, i) =>
      i % 2 === 0
        ? post('/notify', JSON.stringify({ message: `n${i}` }))
        : 'GET /identity/lab-admin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
    );
    const responses = parseResponses(
      await rawExchange(port, [
        `${requests.join('')}GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
      ]),
    );
    expect(responses.map((r) => r.status)).toEqual([
      ...Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? 202 : 200)),
      200,
    ]);
    expect(store.notifications.list().map((n) => n.message)).toEqual(
      Array.from({ length: 25 }, (_, i) => `n${i * 2}`),
    );
  });

  it('answers the complete pipelined requests before a truncated last one, and acts on none of the rest', async () => {
    const { port, store } = await start();
    const text = await rawExchange(
      port,
      [
        `${post('/notify', '{"message":"whole"}')}POST /notify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"message":"cut"`,
      ],
      { halfClose: true },
    );
    expect(parseResponses(text)[0]?.status).toBe(202);
    await sleep(50);
    expect(store.notifications.list().map((n) => n.message)).toEqual(['whole']);
  });
});

describe('timeout settings', () => {
  it('checks the headers and request timeouts every second by default (Node’s own default is 30 s)', async () => {
    expect(loadConfig([], {})).toMatchObject({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      connectionsCheckIntervalMs: 1_000,
    });
    const { running } = await start({});
    expect(running.server).toMatchObject({
      headersTimeout: 10_000,
      requestTimeout: 30_000,
      keepAliveTimeout: 5_000,
    });
  });

  it('refuses a headers timeout longer than the request timeout, in one line', async () => {
    await expect(
      startTestServer({ env: { HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '1000' } }),
    ).rejects.toThrow(/HEADERS_TIMEOUT_MS.*must not exceed REQUEST_TIMEOUT_MS/);
  });
});
