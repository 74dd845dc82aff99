/**
 * What the editor gate's tests share: servers on loopback closed after each test, a gate in front of a
 * stand-in for n8n, raw clients from a chosen loopback address (Linux answers the whole of 127/8), and
 * when each of them saw its connection end.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { type AddressInfo, connect, type Server, type Socket } from 'node:net';
import { type EditorGateOptions, type GateLimits, startEditorGate } from '../../app/console/editor-gate.js';

/** Bounds short enough for a test; each test turns one off for its control. */
export const SHORT: GateLimits = {
  maxConnections: 50,
  maxPerClient: 20,
  firstByteMs: 300,
  idleMs: 1500,
  endGraceMs: 200,
  maxLifeMs: null,
};

/** Every bound off: the gate as it was before it had any. */
export const UNBOUNDED: GateLimits = {
  maxConnections: null,
  maxPerClient: null,
  firstByteMs: null,
  idleMs: null,
  endGraceMs: null,
  maxLifeMs: null,
};

const servers: Server[] = [];
/** Every socket a test opened or a server of its accepted. */
const sockets: Socket[] = [];

/** Closes every server and socket the test opened: a server's close waits for its connections. */
export async function closeAll(): Promise<void> {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
}

/** Forgets a server the test closed itself. */
export function forget(server: Server): void {
  servers.splice(servers.indexOf(server), 1);
}

/** The server, listening (on a free loopback port unless it was told where already). */
export async function listening<T extends Server>(server: T, listen = true): Promise<T & { port: number }> {
  servers.push(server);
  server.on('connection', (socket: Socket) => sockets.push(socket));
  if (listen) server.listen(0, '127.0.0.1');
  if (!server.listening) await once(server, 'listening');
  return Object.assign(server, { port: (server.address() as AddressInfo).port });
}

/** A gate on a free loopback port in front of `port`. */
export function gateTo(
  port: number,
  limits: GateLimits,
  more: Partial<Omit<EditorGateOptions, 'port' | 'limits'>> = {},
): Promise<Server & { port: number }> {
  const options = { host: '127.0.0.1', port: 0, target: { host: '127.0.0.1', port }, refused: null };
  return listening(startEditorGate({ ...options, ...more, limits }), false);
}

/** How many connections the server holds now (a gate: the clients' side of its pairs). */
export function held(server: Server): Promise<number> {
  return new Promise((resolve, reject) =>
    server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
  );
}

/** A raw client that holds its side open (allowHalfOpen), with when it connected and when it was ended. */
export interface Client {
  socket: Socket;
  /** Its port, kept: a closed socket forgets it. */
  port: number | null;
  /** ms since the test's epoch */
  connectedAt: number | null;
  endedAt: number | null;
  received: string;
}

export const now = (() => {
  const epoch = performance.now();
  return () => performance.now() - epoch;
})();

/** Connects from `from` (a loopback address) to the port; never throws: an error is an end. */
export function client(port: number, from = '127.0.0.1'): Client & { ready: Promise<void> } {
  const socket = connect({ port, host: '127.0.0.1', localAddress: from, allowHalfOpen: true });
  sockets.push(socket);
  const c: Client = { socket, port: null, connectedAt: null, endedAt: null, received: '' };
  const ended = () => {
    c.endedAt ??= now();
  };
  socket.on('data', (chunk: Buffer) => {
    c.received += chunk.toString();
  });
  socket.on('end', ended);
  socket.on('close', ended);
  socket.on('error', ended);
  const ready = new Promise<void>((resolve) => {
    socket.once('connect', () => {
      c.connectedAt = now();
      c.port = socket.localPort ?? null;
      resolve();
    });
    socket.once('close', () => resolve());
  });
  return Object.assign(c, { ready });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One GET from the second client (127.0.0.2) to `path` on the port; true when a 200 came back (with the
 * n8n stand-in's `ok` when `body` is given).
 */
export function request(port: number, path: string, body: string | null = 'ok'): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get(
      {
        host: '127.0.0.1',
        port,
        localAddress: '127.0.0.2',
        path,
        agent: false,
        timeout: 5000,
      },
      (res) => {
        let got = '';
        res.on('data', (c: Buffer) => {
          got += c.toString();
        });
        res.on('end', () => resolve(res.statusCode === 200 && (body === null || got === body)));
        res.on('error', () => resolve(false));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

/** Opens `n` connections from 127.0.0.1, `inFlight` connecting at a time; every other sends half a head. */
export async function flood(
  port: number,
  n: number,
  inFlight = 100,
): Promise<(Client & { head: boolean })[]> {
  const all: (Client & { head: boolean })[] = [];
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const head = next++ % 2 === 0;
      const c = Object.assign(client(port, '127.0.0.1'), { head });
      all.push(c);
      await c.ready;
      if (head && c.endedAt === null) c.socket.write('GET /rest/login HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return all;
}

/**
 * Whether a flood of `connections` can run here: the soft limit on open files (ulimit -n) must hold its
 * client side and some room; when it cannot, says so once (the test is then skipped, never passed).
 */
export function floodFits(connections: number, what: string): boolean {
  let limit = 0;
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').match(/^Max open files\s+(\S+)/m);
    limit = line?.[1] === 'unlimited' ? Number.POSITIVE_INFINITY : Number(line?.[1] ?? 0);
  } catch {}
  const needed = connections + 2000;
  if (limit < needed)
    console.warn(`${what} skipped: ulimit -n is ${limit}, it needs ${needed} (raise it for this shell)`);
  return limit >= needed;
}
