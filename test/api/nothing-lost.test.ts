/**
 * Nothing lost: under concurrent mixed traffic, every write answered 2xx is in the state afterwards and
 * no write answered with an error is; and the same holds when SIGTERM arrives in the middle of the load.
 *
 * How the SIGTERM case reads the final state honestly. The state lives in memory and dies with the
 * process, and after SIGTERM the service accepts no new connection, so the verifier cannot simply ask
 * afterwards. Instead it opens its connection BEFORE the signal and sends the head of `GET /state`
 * without the blank line that ends it. A request that has begun is in flight, so graceful shutdown does
 * not close that connection (it closes idle ones only), while the load clients run on until the service
 * closes each of their connections. Only when every load client has stopped (so every write that was
 * ever acknowledged has been answered) does the verifier send the final CRLF: the service answers with
 * its state at that moment, which must hold every acknowledged write, then exits 0. Writes whose answer
 * never arrived may or may not be there; the check is one-way for them.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { State } from '../../app/api/schemas/state.js';
import { startTestServer } from '../helpers/raw-http.js';
import { type ServiceProcess, startService } from '../helpers/service-process.js';

type Outcome = { status: number; body: string };

/** A minimal keep-alive HTTP/1.1 client on one socket: one request at a time, Content-Length framing. */
class Connection {
  readonly socket: Socket;
  #buffer = Buffer.alloc(0);
  #waiting: ((o: Outcome | undefined) => void) | undefined;
  closed = false;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (d) => {
      this.#buffer = Buffer.concat([this.#buffer, d]);
      this.#deliver();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      this.closed = true;
      this.#waiting?.(undefined);
      this.#waiting = undefined;
    });
  }

  static open(port: number): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => resolve(new Connection(socket)));
      socket.once('error', reject);
    });
  }

  #deliver(): void {
    const headEnd = this.#buffer.indexOf('\r\n\r\n');
    if (headEnd === -1 || !this.#waiting) return;
    const head = this.#buffer.subarray(0, headEnd).toString('latin1');
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    if (this.#buffer.length < headEnd + 4 + length) return;
    const body = this.#buffer.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
    this.#buffer = this.#buffer.subarray(headEnd + 4 + length);
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting({ status: Number(head.split(' ')[1]), body });
  }

  /** Sends raw request bytes; resolves with the answer, or undefined if the connection closed first. */
  send(raw: string): Promise<Outcome | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.#waiting = resolve;
      this.socket.write(raw);
      this.#deliver();
    });
  }
}

const post = (path: string, value: unknown) => {
  const body = JSON.stringify(value);
  return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
};

/** What one write was and how it was answered (undefined: the answer never arrived). */
interface Write {
  kind: 'notify' | 'case-create' | 'case-update' | 'block' | 'unblock' | 'mode';
  marker: string;
  status: number | undefined;
  /** performance.now() when the answer arrived. */
  at: number;
}

/**
 * One load client: a mix of good writes, writes the service must refuse (422), writes refused or not
 * depending on the case mode another client flips (503), capacity refusals (507) once the lab is full,
 * and reads. Every write carries a unique marker so the state can be checked write by write.
 */
async function loadClient(
  port: number,
  id: number,
  writes: Write[],
  keepGoing: () => boolean,
): Promise<void> {
  let conn: Connection;
  try {
    conn = await Connection.open(port);
  } catch {
    return;
  }
  for (let n = 0; keepGoing() && !conn.closed; n++) {
    const marker = `c${id}-${n}`;
    const pick = (id * 7 + n) % 10;
    let write: Omit<Write, 'status' | 'at'> | undefined;
    let raw: string;
    if (pick < 3) {
      const bad = n % 5 === 0;
      write = { kind: 'notify', marker };
      raw = post('/notify', bad ? { message: 42, marker } : { message: `m ${marker}`, marker });
    } else if (pick < 5) {
      write = { kind: 'case-create', marker };
      raw = post(
        '/cases',
        n % 6 === 0 ? { event_id: marker, evidence: 'not an object' } : { event_id: marker },
      );
    } else if (pick < 7) {
      write = { kind: 'case-update', marker };
      raw = post('/cases', { event_id: `shared-${n % 4}`, [`f_${marker}`]: n });
    } else if (pick === 7 && id === 0) {
      write = { kind: 'mode', marker };
      raw = post('/control/case-mode', { mode: n % 4 === 0 ? 'failed' : 'healthy' });
    } else if (pick === 8) {
      write = { kind: n % 2 === 0 ? 'block' : 'unblock', marker };
      raw =
        n % 2 === 0
          ? post('/blocklist', { ip: '203.0.113.66', event_id: marker, expires_minutes: 30 })
          : 'DELETE /blocklist/203.0.113.66 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    } else {
      raw = `GET /${n % 2 ? 'health' : 'identity/lab-admin'} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
    }
    const outcome = await conn.send(raw);
    if (write) writes.push({ ...write, status: outcome?.status, at: performance.now() });
    if (!outcome) break;
  }
  conn.socket.destroy();
}

/** Checks the state write by write: every 2xx is there, every error answer is not. */
function verify(state: State, writes: Write[]): { acknowledged: number; refused: number } {
  const notifications = new Set(state.notifications.map((n) => String(n.marker)));
  const cases = new Set(state.cases.map((c) => c.event_id));
  const caseFields = new Set(state.cases.flatMap((c) => Object.keys(c)));
  const blocks = [...state.blocklist, ...state.blocklist_history].map((e) => e.event_id);
  const unblocked = state.blocklist_history.filter((e) => e.removed_reason === 'unblocked').length;
  let acknowledged = 0;
  let refused = 0;
  let acknowledgedUnblocks = 0;
  for (const w of writes) {
    if (w.status === undefined) continue;
    const ok = w.status >= 200 && w.status < 300;
    if (ok) acknowledged++;
    else refused++;
    const label = `${w.kind} ${w.marker} answered ${w.status}`;
    if (w.kind === 'notify') expect(notifications.has(w.marker), label).toBe(ok);
    if (w.kind === 'case-create') expect(cases.has(w.marker), label).toBe(ok);
    if (w.kind === 'case-update') expect(caseFields.has(`f_${w.marker}`), label).toBe(ok);
    if (w.kind === 'block') expect(blocks.includes(w.marker), label).toBe(ok);
    if (w.kind === 'unblock' && ok) acknowledgedUnblocks++;
  }
  expect(unblocked).toBeGreaterThanOrEqual(acknowledgedUnblocks);
  // Without lost answers, the count is exact.
  if (writes.every((w) => w.status !== undefined)) expect(unblocked).toBe(acknowledgedUnblocks);
  return { acknowledged, refused };
}

describe('nothing lost under concurrent mixed traffic', () => {
  const servers: Awaited<ReturnType<typeof startTestServer>>[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('keeps every 2xx-acknowledged write and none answered with an error (16 clients, ~1.5 s)', async () => {
    const server = await startTestServer();
    servers.push(server);
    const writes: Write[] = [];
    const until = performance.now() + 1500;
    await Promise.all(
      Array.from({ length: 16 }, (_, id) =>
        loadClient(server.port, id, writes, () => performance.now() < until),
      ),
    );
    const conn = await Connection.open(server.port);
    const answer = await conn.send('GET /state HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    conn.socket.destroy();
    expect(answer?.status).toBe(200);
    const { acknowledged, refused } = verify(JSON.parse(answer?.body ?? '{}') as State, writes);
    expect(acknowledged).toBeGreaterThan(300);
    expect(refused).toBeGreaterThan(30);
    expect(writes.filter((w) => w.status === undefined)).toEqual([]);
  });
});

describe('nothing lost across SIGTERM during load', () => {
  let service: ServiceProcess | undefined;
  afterEach(() => {
    service?.child.kill('SIGKILL');
    service = undefined;
  });

  it('keeps every acknowledged write up to the moment it exits 0 (the state read on a connection opened before the signal)', async () => {
    service = await startService(['--port', '0'], { SHUTDOWN_GRACE_MS: '5000' });
    const port = Number(new URL(service.url).port);
    const writes: Write[] = [];
    let stopAt = Number.POSITIVE_INFINITY;
    const clients = Array.from({ length: 8 }, (_, id) =>
      loadClient(port, id, writes, () => performance.now() < stopAt),
    );
    await new Promise((r) => setTimeout(r, 600));

    const verifier = await Connection.open(port);
    verifier.socket.write('GET /state HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n');
    await new Promise((r) => setTimeout(r, 20));
    const signalledAt = performance.now();
    service.child.kill('SIGTERM');
    stopAt = signalledAt + 3000; // a safety bound only: the service closes the clients' connections first
    await Promise.all(clients);
    const clientsDoneMs = performance.now() - signalledAt;

    const answer = await verifier.send('\r\n');
    expect(answer?.status, 'the state read after the last acknowledged write').toBe(200);
    const { code } = await service.exited;
    expect(code).toBe(0);
    expect(clientsDoneMs).toBeLessThan(2000);

    const state = JSON.parse(answer?.body ?? '{}') as State;
    const { acknowledged } = verify(state, writes);
    expect(acknowledged).toBeGreaterThan(50);
    // The load really ran into the shutdown: writes were still being answered after the signal.
    const afterSignal = writes.filter((w) => w.at > signalledAt && w.status !== undefined).length;
    expect(afterSignal, `${acknowledged} acknowledged, ${afterSignal} after the signal`).toBeGreaterThan(0);
    expect(service.stdout()).toMatch(/stopped \(SIGTERM\)/);
    // And every acknowledged request has its log line (the batched log is flushed on shutdown).
    const logged = service
      .stdout()
      .split('\n')
      .filter(
        (l) => l.startsWith('{') && /"method":"(POST|DELETE)"/.test(l) && /"status":2\d\d/.test(l),
      ).length;
    expect(logged).toBe(writes.filter((w) => w.status !== undefined && w.status < 300).length);
  });
});
