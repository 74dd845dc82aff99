/**
 * test/lib/reach.sh's closed_no_status, the probe the lab's tests use for "n8n is gone behind the
 * console's gate" (test/lab/keep.sh): run by bash with a real curl against a real gate on loopback. It
 * passes only on a connection made and closed with no status line; a status line, a refused connection
 * (nothing listens) and silence each fail it.
 */
import { execFile } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import type { LookupFunction } from 'node:net';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, forget, gateTo, listening, SHORT } from '../console/gate-harness.js';

/** The helper on URL: its exit status and the exit status of curl it printed. */
function probe(url: string): Promise<{ code: number; said: string }> {
  const script = `. test/lib/reach.sh && closed_no_status curl -s -o /dev/null --max-time 3 -X POST "$1" -H 'content-type: application/json' -d '{}'`;
  return new Promise((resolve) => {
    execFile('bash', ['-c', script, 'probe', url], { timeout: 15_000 }, (err, stdout) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, said: stdout.trim() });
    });
  });
}

/** n8n's container removed: Docker's resolver knows its name no more. */
const noSuchName: LookupFunction = (hostname, _options, callback) =>
  process.nextTick(() =>
    callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 4),
  );

/** A free loopback port, with nothing listening on it any more. */
async function freePort(): Promise<number> {
  const server = await listening(createServer());
  const { port } = server;
  forget(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

afterEach(closeAll);

describe('closed_no_status (test/lib/reach.sh)', () => {
  it('passes on the gate in front of an n8n whose name no longer resolves', async () => {
    const gate = await gateTo(5678, SHORT, { target: { host: 'n8n', port: 5678 }, lookup: noSuchName });
    const { code, said } = await probe(`http://127.0.0.1:${gate.port}/webhook/suspicious-login`);
    expect(said).toMatch(/^curl exit (52|56)$/);
    expect(code).toBe(0);
  });

  it('passes on the gate in front of a port where nothing listens', async () => {
    const gate = await gateTo(await freePort(), SHORT);
    const { code, said } = await probe(`http://127.0.0.1:${gate.port}/webhook/suspicious-login`);
    expect(said).toMatch(/^curl exit (52|56)$/);
    expect(code).toBe(0);
  });

  it('control: fails on the gate in front of a live n8n (a status line, even a 404)', async () => {
    const n8n = await listening(createHttpServer((_req, res) => res.writeHead(404).end('not registered')));
    const gate = await gateTo(n8n.port, SHORT);
    const { code, said } = await probe(`http://127.0.0.1:${gate.port}/webhook/suspicious-login`);
    expect(said).toBe('curl exit 0');
    expect(code).toBe(1);
  });

  it('control: fails where nothing listens at all (a refused connection: the gate gone too)', async () => {
    const { code, said } = await probe(`http://127.0.0.1:${await freePort()}/`);
    expect(said).toBe('curl exit 7');
    expect(code).toBe(1);
  });

  it('control: fails on a listener that connects and says nothing (silence: cannot tell)', async () => {
    const mute = await listening(createServer(() => {}));
    const { code, said } = await probe(`http://127.0.0.1:${mute.port}/`);
    expect(said).toBe('curl exit 28');
    expect(code).toBe(1);
  }, 20_000);
});
