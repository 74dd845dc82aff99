/**
 * The trainee's measurement, scaled up: one client (127.0.0.1) opens and holds 10,000 connections to the
 * editor gate, half of them silent and half with half a request head, while a second client (127.0.0.2)
 * keeps using n8n through it: requests answered, and a push connection that outlives a quiet spell longer
 * than the first-byte limit. The gate holds no more than its per-client cap of the flood, closes each
 * held connection within its limit, and ends holding only the push connection. The control is the same
 * flood on the same gate without the per-client cap: the second client is then refused.
 */
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { GateLimits } from '../../app/console/editor-gate.js';
import {
  type Client,
  client,
  closeAll,
  flood,
  floodFits,
  gateTo,
  held,
  listening,
  now,
  request,
  sleep,
} from './gate-harness.js';

afterEach(closeAll);

const FLOOD = 10_000;
const LIMITS: GateLimits = {
  maxConnections: 60,
  maxPerClient: 30,
  firstByteMs: 300,
  idleMs: 2000,
  endGraceMs: 200,
  maxLifeMs: null,
};
/** How late a timer may fire while 10,000 connections come and go in this one process. */
const SLACK_MS = 1000;
/**
 * How often the stand-in pushes, as n8n pings its push connections every 60 s against the console's 180 s:
 * each quiet spell longer than the first-byte limit, shorter than the idle one.
 */
const QUIET_MS = 1000;

const skip = !floodFits(FLOOD, 'editor gate flood');

/** n8n stand-in: answers `ok`, holds /rest/push open; counts the connections that reach it. */
async function n8nStandIn() {
  const pushes: ServerResponse[] = [];
  const seen = { open: 0, most: 0 };
  const server = await listening(
    createHttpServer((req, res) => {
      if (req.url !== '/rest/push') return res.end('ok');
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: hello\n\n');
      pushes.push(res);
    }),
  );
  server.on('connection', (socket) => {
    seen.open += 1;
    seen.most = Math.max(seen.most, seen.open);
    socket.on('close', () => {
      seen.open -= 1;
    });
  });
  return Object.assign(server, { pushes, seen });
}

async function scenario(limits: GateLimits) {
  const n8n = await n8nStandIn();
  const gate = await gateTo(n8n.port, limits);
  // When the gate took each connection from its backlog (by the client's port): its limits count from there.
  const acceptedAt = new Map<number, number>();
  gate.prependListener('connection', (socket: Socket) => acceptedAt.set(socket.remotePort ?? 0, now()));
  const push = client(gate.port, '127.0.0.2');
  await push.ready;
  push.socket.write('GET /rest/push HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  await expect.poll(() => push.received, { timeout: 2000 }).toContain('data: hello');
  const pings = setInterval(() => n8n.pushes[0]?.write('data: ping\n\n'), QUIET_MS);

  // The second client asks every 20 ms, whether or not its earlier requests have been answered.
  const answers = { ok: 0, refused: 0 };
  const asked: Promise<void>[] = [];
  const ask = () =>
    asked.push(
      request(gate.port, '/rest/settings').then((ok) => void (ok ? answers.ok++ : answers.refused++)),
    );
  const asking = setInterval(ask, 20);
  const clients = await flood(gate.port, FLOOD);
  clearInterval(asking);
  await Promise.all(asked);
  await sleep((limits.idleMs ?? 0) + SLACK_MS);
  clearInterval(pings);
  const pushed = push.received.split('data: ping').length - 1;
  const lived = (c: Client) => (c.endedAt ?? Number.POSITIVE_INFINITY) - (acceptedAt.get(c.port ?? 0) ?? 0);
  return { n8n, push, pushed, clients, lived, answers, stillHeld: await held(gate) };
}

describe.skipIf(skip)(`the editor gate under a flood of ${FLOOD} connections from one client`, () => {
  it("holds its per-client cap of them, closes each within its limit, and the other client's n8n still answers", async () => {
    const { n8n, push, pushed, clients, lived, answers, stillHeld } = await scenario(LIMITS);
    expect(clients.filter((c) => c.connectedAt !== null).length).toBe(FLOOD);
    // What reached n8n at most: the flood's share (30), the push connection and the second client's requests
    // in flight, never every place the gate has (60, as in the control).
    expect(n8n.seen.most).toBeLessThanOrEqual((LIMITS.maxPerClient ?? 0) + 10);
    expect(answers.refused).toBe(0);
    expect(answers.ok).toBeGreaterThanOrEqual(5);
    // The push connection lived through every quiet spell, each longer than the first-byte limit.
    expect(pushed).toBeGreaterThanOrEqual(4);
    expect(push.endedAt).toBeNull();
    // Every connection of the flood ended within its limit: silent ones the first byte's, the rest idle's.
    const late = clients.filter(
      (c) => lived(c) > (c.head ? (LIMITS.idleMs ?? 0) : (LIMITS.firstByteMs ?? 0)) + SLACK_MS,
    );
    expect(late.length).toBe(0);
    expect(stillHeld).toBe(1);
    expect(n8n.seen.open).toBe(1);
  }, 90_000);

  it('control: the same flood without the per-client cap takes every place, and the other client is refused', async () => {
    const { n8n, answers, push } = await scenario({ ...LIMITS, maxPerClient: null });
    // Every place the gate has reaches n8n: the push connection's and the flood's.
    expect(n8n.seen.most).toBe(LIMITS.maxConnections);
    expect(answers.refused).toBeGreaterThan(0);
    // The push connection was held before the flood came: a cap refuses new connections, never closes one.
    expect(push.endedAt).toBeNull();
  }, 90_000);
});
