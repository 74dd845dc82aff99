/**
 * The class board over TLS (BOARD_TLS_CERT, BOARD_TLS_KEY), its own process on loopback, with a class CA and
 * a certificate made by docker/lab/tls.sh (the lab's own script). Each claim beside its control: a client
 * trusting only the class CA gets the sign-in page over https and a `Secure` cookie from a sign-in whose
 * Origin is the board's https:// origin; plain HTTP to the same port gets no status line; the same board
 * without a certificate answers plain HTTP with its page.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { type AddressInfo, connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnNode } from '../helpers/service-process.js';

const SECRET = 'board secret for the tls test';
let dir: string;
let ca: string;
let cert: string;
let key: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'board-tls-'));
  execFileSync('bash', ['docker/lab/tls.sh', join(dir, 'tls'), '127.0.0.1']);
  ca = readFileSync(join(dir, 'tls', 'class-ca.pem'), 'utf8');
  cert = readFileSync(join(dir, 'tls', '127.0.0.1.pem'), 'utf8');
  key = readFileSync(join(dir, 'tls', '127.0.0.1.key'), 'utf8');
});

const boards: ReturnType<typeof spawnNode>[] = [];
afterAll(async () => {
  for (const b of boards) {
    b.child.kill('SIGTERM');
    await b.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

const freePort = async () => {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
};

async function board(env: Record<string, string>): Promise<number> {
  const port = await freePort();
  const proc = spawnNode('app/classroom/board-main.ts', [], {
    BOARD_PORT: String(port),
    BOARD_LABS: dir,
    CLASS_BOARD_SECRET: SECRET,
    ...env,
  });
  boards.push(proc);
  await expect.poll(() => proc.stdout(), { timeout: 20_000 }).toMatch(/class board listening on/);
  return port;
}

/** Whatever a plain-HTTP GET gets back within 2 s ('' when the connection is closed on it). */
function plainGet(port: number, path: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let got = '';
    socket.on('connect', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`));
    socket.on('data', (chunk: Buffer) => {
      got += chunk.toString('latin1');
    });
    const done = () => resolve(got);
    socket.on('close', done);
    socket.on('error', () => {});
    setTimeout(() => {
      socket.destroy();
      done();
    }, 2000);
  });
}

/** An https request trusting only the class CA: its status, body and cookie. */
function httpsCall(
  port: number,
  path: string,
  post?: { body: string; origin: string },
): Promise<{ status: number; body: string; cookie: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = post
      ? { 'content-type': 'application/x-www-form-urlencoded', origin: post.origin }
      : {};
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        ca,
        agent: false,
        timeout: 5000,
        method: post ? 'POST' : 'GET',
        headers,
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c.toString();
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body, cookie: String(res.headers['set-cookie'] ?? '') }),
        );
      },
    );
    req.on('error', reject);
    req.end(post?.body);
  });
}

describe('the class board over TLS (BOARD_TLS_CERT, BOARD_TLS_KEY)', () => {
  it('serves its sign-in page over https to a client trusting the class CA; plain HTTP gets no status line', async () => {
    const port = await board({ BOARD_TLS_CERT: cert, BOARD_TLS_KEY: key });
    const page = await httpsCall(port, '/login');
    expect(page.status).toBe(200);
    expect(page.body).toContain('Board secret');
    const plain = await plainGet(port, '/login');
    expect(plain).not.toMatch(/HTTP\/1\.[01] \d{3}/);
    expect(plain).not.toContain('Board secret');
  }, 30_000);

  it('control: the same board without a certificate answers plain HTTP with its page', async () => {
    const port = await board({});
    const plain = await plainGet(port, '/login');
    expect(plain).toMatch(/^HTTP\/1\.1 200/);
    expect(plain).toContain('Board secret');
  }, 30_000);

  it('signs in from its https:// origin with a Secure cookie; another origin is refused', async () => {
    const port = await board({ BOARD_TLS_CERT: cert, BOARD_TLS_KEY: key, BOARD_PUBLIC_PORT: '' });
    const body = `secret=${encodeURIComponent(SECRET)}`;
    const signed = await httpsCall(port, '/login', { body, origin: `https://127.0.0.1:${port}` });
    expect(signed.status).toBe(303);
    expect(signed.cookie).toMatch(/;\s*Secure/i);
    const foreign = await httpsCall(port, '/login', { body, origin: `https://127.0.0.1:${port + 1}` });
    expect(foreign.status).toBe(403);
  }, 30_000);

  it('refuses to start with a certificate and no key, in one line naming the setting', async () => {
    const proc = spawnNode('app/classroom/board-main.ts', [], { BOARD_PORT: '0', BOARD_TLS_CERT: cert });
    boards.push(proc);
    expect((await proc.exited).code).toBe(2);
    expect(proc.stderr()).toMatch(/BOARD_TLS_KEY: BOARD_TLS_CERT and BOARD_TLS_KEY go together/);
    expect(proc.stderr()).not.toContain('PRIVATE KEY');
  }, 30_000);
});
