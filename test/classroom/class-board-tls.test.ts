/**
 * The class board over TLS (BOARD_TLS_CERT, BOARD_TLS_KEY), its own process on loopback, with a class CA and
 * a certificate made by docker/lab/tls.sh (the lab's own script). Each claim beside its control: a client
 * trusting only the class CA gets the sign-in page over https and a `Secure` cookie from a sign-in whose
 * Origin is the board's https:// origin; plain HTTP to the same port gets no status line; the same board
 * without a certificate answers plain HTTP with its page.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, httpsCall, plainGet, useClassTls } from '../helpers/class-tls.js';
import { spawnNode } from '../helpers/service-process.js';

const SECRET = 'board secret for the tls test';
const tls = useClassTls('board-tls-');

const boards: ReturnType<typeof spawnNode>[] = [];
afterAll(async () => {
  for (const b of boards) {
    b.child.kill('SIGTERM');
    await b.exited;
  }
});

async function board(env: Record<string, string>): Promise<number> {
  const port = await freePort();
  const proc = spawnNode('app/classroom/board-main.ts', [], {
    BOARD_PORT: String(port),
    BOARD_LABS: tls.dir,
    CLASS_BOARD_SECRET: SECRET,
    ...env,
  });
  boards.push(proc);
  await expect.poll(() => proc.stdout(), { timeout: 20_000 }).toMatch(/class board listening on/);
  return port;
}

describe('the class board over TLS (BOARD_TLS_CERT, BOARD_TLS_KEY)', () => {
  it('serves its sign-in page over https to a client trusting the class CA; plain HTTP gets no status line', async () => {
    const port = await board({ BOARD_TLS_CERT: tls.cert, BOARD_TLS_KEY: tls.key });
    const page = await httpsCall(tls.ca, port, '/login');
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
    const port = await board({ BOARD_TLS_CERT: tls.cert, BOARD_TLS_KEY: tls.key, BOARD_PUBLIC_PORT: '' });
    const body = `secret=${encodeURIComponent(SECRET)}`;
    const signed = await httpsCall(tls.ca, port, '/login', { body, origin: `https://127.0.0.1:${port}` });
    expect(signed.status).toBe(303);
    expect(signed.cookie).toMatch(/;\s*Secure/i);
    const foreign = await httpsCall(tls.ca, port, '/login', {
      body,
      origin: `https://127.0.0.1:${port + 1}`,
    });
    expect(foreign.status).toBe(403);
  }, 30_000);

  it('refuses to start with a certificate and no key, in one line naming the setting', async () => {
    const proc = spawnNode('app/classroom/board-main.ts', [], { BOARD_PORT: '0', BOARD_TLS_CERT: tls.cert });
    boards.push(proc);
    expect((await proc.exited).code).toBe(2);
    expect(proc.stderr()).toMatch(/BOARD_TLS_KEY: BOARD_TLS_CERT and BOARD_TLS_KEY go together/);
    expect(proc.stderr()).not.toContain('PRIVATE KEY');
  }, 30_000);
});
