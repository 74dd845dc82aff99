import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type ServiceProcess, spawnService, startService } from '../helpers/service-process.js';

const started: ServiceProcess[] = [];
afterEach(() => {
  for (const s of started.splice(0)) s.child.kill('SIGKILL');
});
const start = async (args?: string[], env?: Record<string, string>) => {
  const s = await startService(args, env);
  started.push(s);
  return s;
};

describe('start-up', () => {
  it('listens on 127.0.0.1 by default with port 0 picking a free port, and prints the real address', async () => {
    const s = await start(['--port', '0']);
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(s.url).not.toMatch(/:0$/);
    const res = await fetch(`${s.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok', case_mode: 'healthy' });
  });

  it('honours HOST and PORT from the environment', async () => {
    const s = await start([], { HOST: '127.0.0.1', PORT: '0' });
    expect((await fetch(`${s.url}/health`)).status).toBe(200);
  });

  it.each([
    [['--port', '99999'], {}],
    [[], { PORT: 'http' }],
    [['--host', 'not a host'], {}],
    [['--bogus'], {}],
  ])('exits non-zero with one line for %j %j', async (args, env) => {
    const s = spawnService(args, env);
    const { code } = await s.exited;
    expect(code).not.toBe(0);
    expect(s.stderr().trim().split('\n')).toHaveLength(1);
    expect(s.stderr()).toMatch(/^mock-api: invalid/);
  });

  it('exits non-zero with one line when the port is taken', async () => {
    const first = await start(['--port', '0']);
    const port = new URL(first.url).port;
    const second = spawnService(['--port', port]);
    const { code } = await second.exited;
    expect(code).toBe(1);
    expect(second.stderr().trim().split('\n')).toEqual([expect.stringMatching(/cannot listen.*EADDRINUSE/)]);
  });

  it('writes one JSON log line per request on stdout', async () => {
    const s = await start();
    await fetch(`${s.url}/health`);
    await fetch(`${s.url}/identity/nobody`);
    await new Promise((r) => setTimeout(r, 50));
    const lines = s
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      expect.objectContaining({
        method: 'GET',
        path: '/health',
        status: 200,
        duration_ms: expect.any(Number),
      }),
      expect.objectContaining({ method: 'GET', path: '/identity/nobody', status: 404 }),
    ]);
  });
});

describe('shutdown', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'on %s finishes the request in flight and exits 0 within 2 s',
    async (signal) => {
      const s = await start();
      const { port } = new URL(s.url);
      const body = '{"message":"sent across the shutdown"}';
      const socket = connect(Number(port), '127.0.0.1');
      await new Promise((r) => socket.once('connect', r));
      let answer = '';
      socket.on('data', (d) => {
        answer += d;
      });
      socket.write(
        `POST /notify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
      );
      await new Promise((r) => setTimeout(r, 100));
      const signalledAt = performance.now();
      s.child.kill(signal);
      await new Promise((r) => setTimeout(r, 200));
      socket.write(body.slice(10));
      const { code, atMs } = await s.exited;
      expect(code).toBe(0);
      expect(atMs - signalledAt).toBeLessThan(2000);
      expect(answer).toMatch(/^HTTP\/1\.1 202/);
      expect(s.stdout()).toMatch(/"path":"\/notify","status":202/);
      socket.destroy();
    },
  );

  it('does not wait for idle keep-alive connections', async () => {
    const s = await start();
    const socket = connect(Number(new URL(s.url).port), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await new Promise((r) => socket.once('data', r));
    const signalledAt = performance.now();
    s.child.kill('SIGTERM');
    const { code, atMs } = await s.exited;
    expect(code).toBe(0);
    expect(atMs - signalledAt).toBeLessThan(1000);
    socket.destroy();
  });
});
