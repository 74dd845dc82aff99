/**
 * The Host header's name, read once for the mock API's Host check and the console's: a table of headers
 * and what both answer to them.
 */
import { describe, expect, it } from 'vitest';
import { createApp, defaultDeps } from '../../app/api/app.js';
import { hostName } from '../../app/service-kit/host-header.js';

const TABLE: [string, string][] = [
  ['mock-api', 'mock-api'],
  ['mock-api:8081', 'mock-api'],
  ['  Mock-API.:8081 ', 'mock-api'],
  ['127.0.0.1:8088', '127.0.0.1'],
  ['[::1]:8088', '[::1]'],
  ['[::1]', '[::1]'],
  ['[::1', ''],
  ['evil.example', 'evil.example'],
];

describe('hostName', () => {
  it.each(TABLE)('%j names %j', (header, name) => {
    expect(hostName(header)).toBe(name);
  });

  it('the mock API answers the names it serves and refuses the others, by the same reading', async () => {
    const app = createApp(defaultDeps({ access: { allowedClients: null, allowedHosts: ['mock-api'] } }));
    const status = async (host: string) => (await app.request('/health', { headers: { host } })).status;
    expect(await status('Mock-API.:8081')).toBe(200);
    expect(await status('[::1]:8081')).toBe(200);
    expect(await status('127.0.0.1')).toBe(200);
    expect(await status('evil.example')).toBe(403);
    expect(await status('[::1')).toBe(403);
  });
});
