/**
 * Each of the editor gate's bounds over real TCP on loopback, on short limits: shown to hold, and shown
 * not to hold on the same gate with that bound off (the control), so a test would fail were it removed.
 */
import { createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { GateLimits } from '../../app/console/editor-gate.js';
import { type Client, client, closeAll, gateTo, held, listening, now, SHORT, sleep } from './gate-harness.js';

afterEach(closeAll);

/**
 * A stand-in for n8n that holds every connection and says nothing unless told to; what each sent it. It
 * closes a connection the gate has ended, so `open` is what the gate still holds of it.
 */
async function quietN8n() {
  const open = new Map<Socket, string>();
  const server = await listening(
    createServer((socket) => {
      open.set(socket, '');
      socket.on('data', (c: Buffer) => open.set(socket, (open.get(socket) ?? '') + c.toString()));
      socket.on('error', () => {});
      socket.on('close', () => open.delete(socket));
    }),
  );
  const sentBy = (text: string) => [...open].find(([, sent]) => sent.includes(text))?.[0];
  return Object.assign(server, { open, sentBy });
}

/** `n` clients from `from`, each sending a byte, given time to be refused or held. */
async function opened(port: number, from: string, n: number): Promise<Client[]> {
  const clients = Array.from({ length: n }, () => client(port, from));
  await Promise.all(clients.map((c) => c.ready));
  for (const c of clients) if (c.endedAt === null) c.socket.write('G');
  await sleep(150);
  return clients;
}

const stillOpen = (clients: Client[]) => clients.filter((c) => c.endedAt === null).length;

describe('the editor gate: connections in all (EDITOR_GATE_MAX_CONNECTIONS)', () => {
  async function fromThreeClients(limits: GateLimits) {
    const n8n = await quietN8n();
    const gate = await gateTo(n8n.port, limits);
    const all: Client[] = [];
    for (const from of ['127.0.0.11', '127.0.0.12', '127.0.0.13'])
      all.push(...(await opened(gate.port, from, 3)));
    return { gate, n8n, all };
  }

  it('holds at most the cap; the rest closed at once; a freed place is taken again', async () => {
    const { gate, n8n, all } = await fromThreeClients({ ...SHORT, maxConnections: 6, maxPerClient: 6 });
    expect(stillOpen(all)).toBe(6);
    expect(n8n.open.size).toBe(6);
    expect(await held(gate)).toBe(6);
    const refused = all.filter((c) => c.endedAt !== null);
    for (const c of refused) expect((c.endedAt ?? 0) - (c.connectedAt ?? 0)).toBeLessThan(100);
    all.find((c) => c.endedAt === null)?.socket.destroy();
    await sleep(50);
    const again = await opened(gate.port, '127.0.0.14', 2);
    expect(stillOpen(again)).toBe(1);
  });

  it('control: without the cap all nine are held', async () => {
    const { n8n, all } = await fromThreeClients({ ...SHORT, maxConnections: null, maxPerClient: 6 });
    expect(stillOpen(all)).toBe(9);
    expect(n8n.open.size).toBe(9);
  });
});

describe('the editor gate: connections from one client (EDITOR_GATE_MAX_PER_CLIENT)', () => {
  async function floodThenOther(limits: GateLimits) {
    const n8n = await quietN8n();
    const gate = await gateTo(n8n.port, limits);
    const flood = await opened(gate.port, '127.0.0.1', 8);
    const other = await opened(gate.port, '127.0.0.2', 2);
    return { flood: stillOpen(flood), other: stillOpen(other) };
  }

  it('holds at most the cap from one address, and another address still gets in', async () => {
    expect(await floodThenOther({ ...SHORT, maxConnections: 8, maxPerClient: 3 })).toEqual({
      flood: 3,
      other: 2,
    });
  });

  it('control: without it one address takes every place and the other is refused', async () => {
    expect(await floodThenOther({ ...SHORT, maxConnections: 8, maxPerClient: null })).toEqual({
      flood: 8,
      other: 0,
    });
  });
});

describe('the editor gate: a tab cannot keep the whole share (EDITOR_GATE_MAKE_ROOM_SECONDS)', () => {
  // One address (an ssh tunnel: every tab of the trainee's), its cap held by one tab for longer than the
  // limit; then another tab opens two, and two more come at once: only the last old one makes room.
  async function heldThenAnotherTab(limits: GateLimits) {
    const n8n = await quietN8n();
    const gate = await gateTo(n8n.port, limits);
    const tab = await opened(gate.port, '127.0.0.1', 3);
    await sleep(400);
    const other = await opened(gate.port, '127.0.0.1', 2);
    const young = await opened(gate.port, '127.0.0.1', 2);
    return { tab: stillOpen(tab), other: stillOpen(other), young: stillOpen(young), n8n: n8n.open.size };
  }

  it("the tab's oldest connections make room for the other tab's; young ones (a flood's) make none", async () => {
    expect(
      await heldThenAnotherTab({ ...SHORT, maxConnections: 8, maxPerClient: 3, makeRoomAfterMs: 300 }),
    ).toEqual({ tab: 0, other: 2, young: 1, n8n: 3 });
  });

  it('control: without it the tab keeps the whole share and the other tab is refused', async () => {
    expect(
      await heldThenAnotherTab({ ...SHORT, maxConnections: 8, maxPerClient: 3, makeRoomAfterMs: null }),
    ).toEqual({ tab: 3, other: 0, young: 0, n8n: 3 });
  });
});

describe('the editor gate: the first byte (EDITOR_GATE_FIRST_BYTE_SECONDS)', () => {
  async function silentAndTalking(limits: GateLimits) {
    const n8n = await quietN8n();
    const gate = await gateTo(n8n.port, limits);
    const silent = client(gate.port);
    const talking = client(gate.port);
    await Promise.all([silent.ready, talking.ready]);
    await sleep(100);
    talking.socket.write('GET / HTTP/1.1\r\n');
    await sleep(700);
    return { silent, talking, n8n };
  }

  it('closes a connection that sends nothing within the limit, both sides; one that spoke stays', async () => {
    const { silent, talking, n8n } = await silentAndTalking({ ...SHORT, firstByteMs: 300 });
    const lived = (silent.endedAt ?? Number.POSITIVE_INFINITY) - (silent.connectedAt ?? 0);
    expect(lived).toBeGreaterThanOrEqual(250);
    expect(lived).toBeLessThan(600);
    expect(talking.endedAt).toBeNull();
    expect(n8n.open.size).toBe(1);
  });

  it('control: without it the silent connection is still held', async () => {
    const { silent, n8n } = await silentAndTalking({ ...SHORT, firstByteMs: null });
    expect(silent.endedAt).toBeNull();
    expect(n8n.open.size).toBe(2);
  });
});

describe('the editor gate: quiet both ways (EDITOR_GATE_IDLE_SECONDS)', () => {
  async function threeConnections(limits: GateLimits) {
    const n8n = await quietN8n();
    const gate = await gateTo(n8n.port, limits);
    const [quiet, fromClient, fromN8n] = [client(gate.port), client(gate.port), client(gate.port)];
    await Promise.all([quiet.ready, fromClient.ready, fromN8n.ready]);
    // Half a request head each, then: nothing; the client every 100 ms; n8n every 100 ms.
    quiet.socket.write('GET /quiet HTTP/1.1\r\nHost: x\r\n');
    fromClient.socket.write('GET /client HTTP/1.1\r\nHost: x\r\n');
    fromN8n.socket.write('GET /n8n HTTP/1.1\r\nHost: x\r\n');
    const wroteAt = now();
    await sleep(50);
    const n8nSide = n8n.sentBy('/n8n');
    const ticks = setInterval(() => {
      fromClient.socket.write('x');
      n8nSide?.write('.');
    }, 100);
    await sleep(1200);
    clearInterval(ticks);
    return { quiet, fromClient, fromN8n, wroteAt, n8n };
  }

  it('closes a connection quiet both ways for the limit; traffic either way keeps one open', async () => {
    const { quiet, fromClient, fromN8n, wroteAt } = await threeConnections({
      ...SHORT,
      firstByteMs: 200,
      idleMs: 600,
    });
    const quietFor = (quiet.endedAt ?? Number.POSITIVE_INFINITY) - wroteAt;
    expect(quietFor).toBeGreaterThanOrEqual(550);
    expect(quietFor).toBeLessThan(900);
    expect(fromClient.endedAt).toBeNull();
    expect(fromN8n.endedAt).toBeNull();
    expect(fromN8n.received.length).toBeGreaterThan(5);
  });

  it('control: without it the quiet connection is still held', async () => {
    const { quiet, n8n } = await threeConnections({ ...SHORT, firstByteMs: 200, idleMs: null });
    expect(quiet.endedAt).toBeNull();
    expect(n8n.open.size).toBe(3);
  });
});

describe('the editor gate: after an end (EDITOR_GATE_END_GRACE_SECONDS)', () => {
  /** n8n answers and ends at once; the browser holds its side open and says nothing more. */
  async function n8nEndsFirst(limits: GateLimits) {
    const n8n = await listening(createServer({ allowHalfOpen: true }, (s) => s.end('bye')));
    const gate = await gateTo(n8n.port, limits);
    const browser = client(gate.port);
    await browser.ready;
    browser.socket.write('GET / HTTP/1.1\r\n\r\n');
    await sleep(600);
    return { browser, gate };
  }

  /** The browser sends and ends; n8n answers 100 ms later and never ends. */
  async function browserEndsFirst(limits: GateLimits) {
    let n8nSide: Socket | undefined;
    const n8n = await listening(
      createServer({ allowHalfOpen: true }, (socket) => {
        n8nSide = socket;
        socket.on('error', () => {});
        socket.on('end', () => setTimeout(() => socket.write('the answer'), 100));
        socket.resume();
      }),
    );
    const gate = await gateTo(n8n.port, limits);
    const browser = client(gate.port);
    await browser.ready;
    browser.socket.end('ping');
    const endedAt = now();
    await sleep(600);
    return { browser, gate, endedAt, n8nClosed: n8nSide?.destroyed || n8nSide?.readableEnded };
  }

  it('closes the pair within the grace once n8n has ended, the answer passed on first', async () => {
    const { browser, gate } = await n8nEndsFirst({ ...SHORT, endGraceMs: 200 });
    expect(browser.received).toBe('bye');
    expect(await held(gate)).toBe(0);
  });

  it('closes the pair within the grace once the browser has ended; the answer after its end arrived', async () => {
    const { browser, gate, endedAt, n8nClosed } = await browserEndsFirst({ ...SHORT, endGraceMs: 200 });
    expect(browser.received).toBe('the answer');
    expect((browser.endedAt ?? Number.POSITIVE_INFINITY) - endedAt).toBeLessThan(450);
    expect(await held(gate)).toBe(0);
    expect(n8nClosed).toBe(true);
  });

  it('control: without it both pairs stay open after an end', async () => {
    const first = await n8nEndsFirst({ ...SHORT, endGraceMs: null });
    expect(await held(first.gate)).toBe(1);
    const second = await browserEndsFirst({ ...SHORT, endGraceMs: null });
    expect(second.browser.received).toBe('the answer');
    expect(second.browser.endedAt).toBeNull();
    expect(await held(second.gate)).toBe(1);
  });
});
