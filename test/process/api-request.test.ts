import { spawn } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/raw-http.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
let server: Server;
beforeEach(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  await server.close();
});

function run(args: string[], apiUrl = `http://127.0.0.1:${server.port}`) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'app/cli/api-request.ts', ...args], {
      env: { PATH: process.env.PATH ?? '', API_URL: apiUrl },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
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
});
