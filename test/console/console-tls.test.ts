/**
 * The console and its editor gate over TLS (CONSOLE_TLS_CERT, CONSOLE_TLS_KEY) and the bounds of their
 * ports, over real sockets on loopback, with a class CA and a certificate made by docker/lab/tls.sh (the
 * lab's own script). Each claim beside its control: a plain-HTTP client gets content from a console that
 * serves plain HTTP and none from the same console over TLS; a busy connection is closed at the gate's
 * whole-life bound and kept without it; a slow request head is cut at the console's header bound and kept
 * under the default; connections over the console's cap are closed and, under the default, held.
 */
import { createServer, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort, httpsCall, plainGet, useClassTls } from '../helpers/class-tls.js';
import { spawnNode } from '../helpers/service-process.js';
import { client, closeAll, gateTo, listening, now, SHORT, sleep } from './gate-harness.js';
import { waitForLine } from './harness.js';

const SECRET = 'correct horse battery staple';
const classTls = useClassTls('console-tls-');
afterEach(closeAll);

async function runConsole(env: Record<string, string>) {
  const [gatePort, consolePort] = [await freePort(), await freePort()];
  // A port of its own, not 0: the console's https:// origin carries the port it is published on.
  const proc = spawnNode('app/console/main.ts', [], {
    CONSOLE_PORT: String(consolePort),
    CONSOLE_SECRET: SECRET,
    EDITOR_GATE_PORT: String(gatePort),
    N8N_URL: 'http://127.0.0.1:9',
    ...env,
  });
  const [, url = ''] = await waitForLine(proc, /console listening on (https?:\/\/\S+)/);
  await waitForLine(proc, /editor gate listening/);
  return { proc, port: Number(new URL(url).port), url, gatePort };
}
const running: Array<Awaited<ReturnType<typeof runConsole>>> = [];
const started = async (env: Record<string, string> = {}) => {
  const c = await runConsole(env);
  running.push(c);
  return c;
};
afterAll(async () => {
  for (const c of running) {
    c.proc.child.kill('SIGTERM');
    await c.proc.exited;
  }
});

describe('the console over TLS (CONSOLE_TLS_CERT, CONSOLE_TLS_KEY)', () => {
  it('serves its sign-in page over https to a client trusting the class CA; plain HTTP gets nothing', async () => {
    const tls = await started({ CONSOLE_TLS_CERT: classTls.cert, CONSOLE_TLS_KEY: classTls.key });
    expect(tls.url).toMatch(/^https:/);
    const page = await httpsCall(classTls.ca, tls.port, '/login');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<form');
    const plain = await plainGet(tls.port);
    expect(plain).not.toMatch(/HTTP\/1\.[01] \d{3}/);
    expect(plain).not.toContain('<form');
  });

  it('control: the same console without a certificate answers plain HTTP with its page', async () => {
    const open = await started();
    expect(open.url).toMatch(/^http:/);
    const plain = await plainGet(open.port);
    expect(plain).toMatch(/^HTTP\/1\.1 200/);
    expect(plain).toContain('<form');
  });

  it('sets its session cookie Secure over TLS and takes its https:// origin as its own', async () => {
    const tls = await started({ CONSOLE_TLS_CERT: classTls.cert, CONSOLE_TLS_KEY: classTls.key });
    const form = `secret=${encodeURIComponent(SECRET)}`;
    const answer = await httpsCall(classTls.ca, tls.port, '/login', {
      body: form,
      origin: `https://127.0.0.1:${tls.port}`,
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    expect(answer.status).toBe(303);
    expect(answer.cookie).toMatch(/; Secure/i);
  });

  it('refuses to start with a certificate and no key, in one line naming the setting', async () => {
    const proc = spawnNode('app/console/main.ts', [], {
      CONSOLE_PORT: '0',
      CONSOLE_SECRET: SECRET,
      CONSOLE_TLS_CERT: classTls.cert,
    });
    const { code } = await proc.exited;
    expect(code).toBe(2);
    expect(proc.stderr()).toMatch(/CONSOLE_TLS_KEY/);
    expect(proc.stderr()).not.toContain('PRIVATE KEY');
  });
});

describe('the editor gate over TLS', () => {
  async function n8nSaysOk() {
    return listening(
      createServer((s) => {
        s.on('error', () => {});
        s.on('data', () => s.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok'));
      }),
    );
  }

  it('passes a TLS client through to n8n; a plain client gets nothing of n8n', async () => {
    const n8n = await n8nSaysOk();
    const gate = await gateTo(n8n.port, SHORT, { tls: { cert: classTls.cert, key: classTls.key } });
    const page = await httpsCall(classTls.ca, gate.port, '/');
    expect(page).toMatchObject({ status: 200, body: 'ok' });
    expect(await plainGet(gate.port, '/')).toBe('');
  });

  it('control: the gate without TLS gives the plain client n8n answer', async () => {
    const n8n = await n8nSaysOk();
    const gate = await gateTo(n8n.port, SHORT);
    expect(await plainGet(gate.port, '/')).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*ok$/);
  });

  it('a TLS client that trusts another CA is refused by its own check (the certificate is the class CA one)', async () => {
    const n8n = await n8nSaysOk();
    const gate = await gateTo(n8n.port, SHORT, { tls: { cert: classTls.cert, key: classTls.key } });
    const socket = tlsConnect({ host: '127.0.0.1', port: gate.port, servername: undefined });
    const error = await new Promise<Error>((resolve) => socket.once('error', resolve));
    expect(error.message).toMatch(/certificate/i);
    socket.destroy();
  });
});

describe('the editor gate: a connection whole life (EDITOR_GATE_MAX_LIFE_SECONDS)', () => {
  async function busy(maxLifeMs: number | null) {
    const n8n = await listening(
      createServer((s: Socket) => {
        s.on('error', () => {});
      }),
    );
    const gate = await gateTo(n8n.port, { ...SHORT, idleMs: 400, maxLifeMs });
    const c = client(gate.port);
    await c.ready;
    const at = now();
    // A byte every 100 ms: never idle.
    const ticks = setInterval(() => c.socket.write('x'), 100);
    await sleep(1500);
    clearInterval(ticks);
    return { c, at };
  }

  it('closes a busy connection at its whole life', async () => {
    const { c, at } = await busy(800);
    const lived = (c.endedAt ?? Number.POSITIVE_INFINITY) - at;
    expect(lived).toBeGreaterThanOrEqual(750);
    expect(lived).toBeLessThan(1200);
  });

  it('control: without it the busy connection is still held', async () => {
    const { c } = await busy(null);
    expect(c.endedAt).toBeNull();
  });
});

describe("the console's own port: request head time and connections (CONSOLE_HEADERS_SECONDS, CONSOLE_MAX_CONNECTIONS)", () => {
  /** A client that sends a request head a byte every 200 ms, never finishing it: when it was ended. */
  async function slowHead(port: number): Promise<number | null> {
    const c = client(port);
    await c.ready;
    const at = now();
    const head = `GET /login HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${'a'.repeat(40)}`;
    let i = 0;
    const ticks = setInterval(() => {
      if (c.endedAt === null && i < head.length) c.socket.write(head[i++] ?? '');
    }, 200);
    await sleep(3500);
    clearInterval(ticks);
    return c.endedAt === null ? null : c.endedAt - at;
  }

  it('ends a request head still unfinished after CONSOLE_HEADERS_SECONDS', async () => {
    const bounded = await started({ CONSOLE_HEADERS_SECONDS: '1', CONSOLE_REQUEST_SECONDS: '2' });
    const ended = await slowHead(bounded.port);
    expect(ended).not.toBeNull();
    // Node checks its request timers every connectionsCheckingInterval (30 s by default; the console: 1 s).
    expect(ended ?? 0).toBeLessThan(3200);
  });

  it('control: under the default (10 s) the same slow head is still open after 3.5 s', async () => {
    const open = await started();
    expect(await slowHead(open.port)).toBeNull();
  });

  async function holding(port: number, n: number) {
    const clients = Array.from({ length: n }, () => client(port));
    await Promise.all(clients.map((c) => c.ready));
    await sleep(300);
    return clients.filter((c) => c.endedAt === null).length;
  }

  it('holds at most CONSOLE_MAX_CONNECTIONS at once; the rest are closed', async () => {
    const capped = await started({ CONSOLE_MAX_CONNECTIONS: '3' });
    expect(await holding(capped.port, 6)).toBe(3);
  });

  it('control: under the default all six are held', async () => {
    const open = await started();
    expect(await holding(open.port, 6)).toBe(6);
  });
});
