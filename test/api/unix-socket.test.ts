/**
 * SOCKET_PATH: the mock API also listens on a Unix socket (the lab console's only way in, compose lab).
 * A socket peer has no IP address: it passes ALLOWED_CLIENTS (the file's mode 0600 and the volume decide
 * who connects) but not the Host and Origin checks. The TCP listener keeps refusing unlisted addresses.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, spawnService, startService } from '../helpers/service-process.js';

const dir = mkdtempSync(join(tmpdir(), 'soar-sock-'));
const started: ServiceProcess[] = [];
afterAll(async () => {
  for (const s of started) {
    s.child.kill('SIGTERM');
    await s.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

function overSocket(socketPath: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ socketPath, path, headers: { host: 'localhost', ...headers } }, (res) => {
      let body = '';
      res.on('data', (d) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the Unix socket listener (SOCKET_PATH)', () => {
  it('serves the socket peer despite ALLOWED_CLIENTS, which still refuses TCP from unlisted addresses', async () => {
    const socketPath = join(dir, 'api.sock');
    // A stale socket file from a killed process is replaced, not a start-up failure.
    const stale = createServer().listen(socketPath);
    await new Promise((r) => stale.once('listening', r));
    stale.close();
    writeFileSync(join(dir, 'unused'), '');
    const svc = await startService(['--port', '0'], {
      SOCKET_PATH: socketPath,
      ALLOWED_CLIENTS: '10.9.9.9/32',
    });
    started.push(svc);
    await expect.poll(() => svc.stdout()).toContain(`listening on unix:${socketPath}`);
    expect(statSync(socketPath).mode & 0o777).toBe(0o600);

    const health = await overSocket(socketPath, '/health');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({ status: 'ok' });

    const tcp = await fetch(`${svc.url}/health`);
    expect(tcp.status).toBe(403);
    expect(await tcp.json()).toMatchObject({ error: { code: 'client_not_allowed' } });

    const rebinding = await overSocket(socketPath, '/health', { host: 'attacker.example' });
    expect(rebinding.status).toBe(403);
    expect(JSON.parse(rebinding.body)).toMatchObject({ error: { code: 'host_not_allowed' } });
    const browser = await overSocket(socketPath, '/health', { origin: 'http://127.0.0.1:8088' });
    expect(JSON.parse(browser.body)).toMatchObject({ error: { code: 'origin_not_allowed' } });
  });

  it('refuses to start, with one line, when the path is not a socket it may replace', async () => {
    const file = join(dir, 'unused');
    const proc = spawnService(['--port', '0'], { SOCKET_PATH: file });
    const { code } = await proc.exited;
    expect(code).toBe(1);
    expect(proc.stderr()).toMatch(new RegExp(`cannot listen on ${file}: .*EADDRINUSE`));
  });

  it('refuses a relative SOCKET_PATH', async () => {
    const proc = spawnService(['--port', '0'], { SOCKET_PATH: 'api.sock' });
    expect((await proc.exited).code).toBe(2);
    expect(proc.stderr()).toMatch(/SOCKET_PATH.*absolute/);
  });
});
