import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/raw-http.js';
import { spawnNode } from '../helpers/service-process.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
let server: Server;
beforeEach(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  await server.close();
});

async function run(args: string[], apiUrl = `http://127.0.0.1:${server.port}`) {
  const proc = spawnNode('app/mock-api-client/api-request-cli.ts', args, { API_URL: apiUrl });
  const { code } = await proc.exited;
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

describe('api-request (the operator CLI in the image)', () => {
  it('POSTs JSON and prints the answer; exit 0 on 2xx', async () => {
    const res = await run(['POST', '/notify', '{"message":"from the CLI"}']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ id: 'ntf-000001', message: 'from the CLI' });
    expect(server.store.notifications.size).toBe(1);
  });

  it('exits 1 on an error answer, 0 with --envelope, printing status and body', async () => {
    expect((await run(['GET', '/cases/none'])).code).toBe(1);
    const env = await run(['--envelope', 'GET', '/cases/none']);
    expect(env.code).toBe(0);
    expect(JSON.parse(env.stdout)).toEqual({
      status: 404,
      body: { error: { code: 'case_not_found', message: expect.any(String) } },
    });
  });

  it('exits 2 on bad usage and when the service cannot be reached', async () => {
    expect((await run(['GET'])).code).toBe(2);
    expect((await run(['POST', '/reset', '{not json'])).code).toBe(2);
    expect((await run(['GET', '/health'], 'http://127.0.0.1:1')).code).toBe(2);
  });

  it("without API_URL reaches the mock API's own PORT on loopback; a bad PORT or API_URL is one line, exit 2", async () => {
    const byPort = spawnNode('app/mock-api-client/api-request-cli.ts', ['GET', '/health'], {
      API_URL: '',
      PORT: String(server.port),
    });
    expect((await byPort.exited).code).toBe(0);
    const badPort = spawnNode('app/mock-api-client/api-request-cli.ts', ['GET', '/health'], {
      API_URL: '',
      PORT: 'abc',
    });
    expect((await badPort.exited).code).toBe(2);
    expect(badPort.stderr()).toBe('api-request: invalid port (PORT or --port) "abc": must be a number\n');
    const badUrl = await run(['GET', '/health'], 'ftp://x');
    expect([badUrl.code, badUrl.stderr]).toEqual([
      2,
      'api-request: invalid API_URL "ftp://x": must be an http(s) URL\n',
    ]);
  });
});
