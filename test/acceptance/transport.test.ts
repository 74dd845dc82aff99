/** The two ways the runner reaches the mock API, against a real one on loopback. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalMockApi, startLocalMockApi } from '../../app/acceptance/mock-api-server.js';
import { ExecTransport, HttpTransport } from '../../app/acceptance/transport.js';

let api: LocalMockApi;
beforeAll(async () => {
  api = await startLocalMockApi();
});
afterAll(async () => {
  await api.close();
});

describe('HttpTransport', () => {
  it('sends JSON bodies the POST rules accept, and no Origin', async () => {
    const http = new HttpTransport(api.url);
    expect(await http.request('POST', '/reset', {})).toEqual({
      status: 200,
      body: { reset: true, case_mode: 'healthy' },
    });
    expect((await http.request('POST', '/control/case-mode', { mode: 'failed' })).status).toBe(200);
    expect(await http.request('GET', '/cases/evt-x')).toMatchObject({ status: 503 });
    expect((await http.request('DELETE', '/blocklist/203.0.113.66')).status).toBe(404);
  });
});

describe('ExecTransport with the shipped api-request CLI', () => {
  // The same command the compose lab runs inside the container, here from source on the host.
  const exec = () =>
    new ExecTransport(`API_URL=${api.url} node --import tsx app/cli/api-request.ts --envelope`);

  it('passes method, path and JSON through and reads the envelope, 4xx included', async () => {
    const transport = exec();
    expect(await transport.request('POST', '/reset', {})).toEqual({
      status: 200,
      body: { reset: true, case_mode: 'healthy' },
    });
    // A body with quotes and spaces reaches the service verbatim: no shell re-parses it.
    const notify = await transport.request('POST', '/notify', { message: `it's "quoted" $HOME; rm -rf x` });
    expect(notify).toMatchObject({ status: 202, body: { message: `it's "quoted" $HOME; rm -rf x` } });
    expect(await transport.request('GET', '/cases/evt-none')).toMatchObject({
      status: 404,
      body: { error: { code: 'case_not_found' } },
    });
  });

  it('fails loudly when the command prints no envelope', async () => {
    await expect(new ExecTransport('echo not-json').request('GET', '/health')).rejects.toThrow(
      /no \{"status","body"\} line/,
    );
    await expect(new ExecTransport('exit 3;').request('GET', '/health')).rejects.toThrow(/exit code 3/);
  });
});
