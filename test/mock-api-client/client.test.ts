/**
 * The one mock-API client (app/mock-api-client/client.ts) that the matrix, the checker and the console share, by
 * each of its three ways in, against a real mock API process (its TCP port and its Unix socket).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockApiClient } from '../../app/mock-api-client/client.js';
import { type ServiceProcess, startService } from '../helpers/service-process.js';

let api: ServiceProcess;
let dir: string;
let socketPath: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'soar-client-'));
  socketPath = join(dir, 'api.sock');
  api = await startService(['--port', '0'], { SOCKET_PATH: socketPath });
  const deadline = Date.now() + 10_000;
  while (!api.stdout().includes('listening on unix:') && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 25));
});
afterAll(async () => {
  api.child.kill('SIGTERM');
  await api.exited;
  rmSync(dir, { recursive: true, force: true });
});

describe.each([
  ['http', () => mockApiClient({ kind: 'http', url: api.url })],
  ['socket', () => mockApiClient({ kind: 'socket', path: socketPath })],
  [
    'exec',
    () =>
      mockApiClient({
        kind: 'exec',
        prefix: `API_URL=${api.url} node --import tsx app/mock-api-client/api-request-cli.ts --envelope`,
      }),
  ],
] as const)('the client over %s', (_kind, open) => {
  it('sends JSON bodies the POST rules accept and reads every answer, 4xx included', async () => {
    const client = open();
    try {
      expect(await client.request('POST', '/reset', {})).toMatchObject({
        status: 200,
        body: { reset: true, case_mode: 'healthy' },
      });
      // A body with quotes and spaces reaches the service verbatim (the exec way: no shell re-parses it).
      const message = `it's "quoted" $HOME; rm -rf x`;
      expect(await client.request('POST', '/notify', { message })).toMatchObject({
        status: 202,
        body: { message },
      });
      expect(await client.request('GET', '/cases/evt-none')).toMatchObject({
        status: 404,
        body: { error: { code: 'case_not_found' } },
      });
      expect((await client.request('DELETE', '/blocklist/203.0.113.66')).status).toBe(404);
      const state = await client.request('GET', '/state');
      expect(JSON.parse(state.text)).toEqual(state.body);
    } finally {
      client.close();
    }
  });
});

describe('the client fails loudly', () => {
  it('on a socket path where nothing listens', async () => {
    const client = mockApiClient({ kind: 'socket', path: join(dir, 'nothing.sock') });
    await expect(client.request('GET', '/health')).rejects.toThrow(/ENOENT|ECONNREFUSED/);
    client.close();
  });

  it('on a command that prints no envelope, or fails', async () => {
    await expect(
      mockApiClient({ kind: 'exec', prefix: 'echo not-json' }).request('GET', '/health'),
    ).rejects.toThrow(/no \{"status","body"\} line/);
    await expect(
      mockApiClient({ kind: 'exec', prefix: 'exit 3;' }).request('GET', '/health'),
    ).rejects.toThrow(/exit code 3/);
  });

  it('on no answer within its time limit', async () => {
    const { createServer } = await import('node:net');
    const held: import('node:net').Socket[] = [];
    const silent = createServer((socket) => held.push(socket));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const address = silent.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const client = mockApiClient({ kind: 'http', url: `http://127.0.0.1:${port}` }, { timeoutMs: 200 });
    await expect(client.request('GET', '/health')).rejects.toThrow(/no answer within 200 ms/);
    client.close();
    for (const socket of held) socket.destroy();
    await new Promise((r) => silent.close(r));
  });
});
