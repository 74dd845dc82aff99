import { afterEach, describe, expect, it } from 'vitest';
import { parseCidrList } from '../../../app/service-kit/cidr.js';
import { parseResponses, rawExchange, startTestServer } from '../../helpers/raw-http.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
const start = async (...args: Parameters<typeof startTestServer>) => {
  const s = await startTestServer(...args);
  servers.push(s);
  return s;
};

const get = async (port: number, headers: string) => {
  const [res] = parseResponses(
    await rawExchange(port, [`GET /identity/lab-admin HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`]),
  );
  return res;
};

describe('Host allowlist (DNS rebinding)', () => {
  it('answers IP literals and localhost, and refuses other names with 403 host_not_allowed', async () => {
    const { port, store } = await start();
    for (const host of [
      '127.0.0.1',
      `127.0.0.1:${port}`,
      'localhost',
      `localhost:${port}`,
      '[::1]:8081',
      'LOCALHOST.',
    ]) {
      expect((await get(port, `Host: ${host}\r\n`))?.status, host).toBe(200);
    }
    for (const host of [
      'attacker.example',
      `attacker.example:${port}`,
      'localhost.attacker.example',
      '127.0.0.1.nip.io',
    ]) {
      const res = await get(port, `Host: ${host}\r\n`);
      expect(res?.status, host).toBe(403);
      expect(res?.json).toMatchObject({ error: { code: 'host_not_allowed' } });
    }
    expect(store.journal.list().filter((e) => e.status === 403)).toHaveLength(4);
  });

  it('answers the names listed in ALLOWED_HOSTS, or any name with *', async () => {
    const named = await start({ access: { allowedClients: null, allowedHosts: ['mock-api'] } });
    expect((await get(named.port, 'Host: mock-api:8081\r\n'))?.status).toBe(200);
    expect((await get(named.port, 'Host: other\r\n'))?.status).toBe(403);
    const any = await start({ access: { allowedClients: null, allowedHosts: ['*'] } });
    expect((await get(any.port, 'Host: whatever.example\r\n'))?.status).toBe(200);
  });
});

describe('browser requests', () => {
  it('refuses anything carrying an Origin header with 403 origin_not_allowed, changing nothing', async () => {
    const { port, store } = await start();
    const res = await get(port, 'Host: 127.0.0.1\r\nOrigin: http://evil.example\r\n');
    expect(res?.status).toBe(403);
    expect(res?.json).toMatchObject({ error: { code: 'origin_not_allowed' } });
    const body = '{}';
    const [reset] = parseResponses(
      await rawExchange(port, [
        `POST /reset HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: null\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n${body}`,
      ]),
    );
    expect(reset?.status).toBe(403);
    expect(store.journal.list()).toHaveLength(2);
  });
});

describe('source-address allowlist (ALLOWED_CLIENTS)', () => {
  it('refuses a client outside the allowed ranges with 403 client_not_allowed', async () => {
    const { port } = await start({
      access: { allowedClients: parseCidrList(['10.0.0.0/8']), allowedHosts: [] },
    });
    const res = await get(port, 'Host: 127.0.0.1\r\n');
    expect(res?.status).toBe(403);
    expect(res?.json).toMatchObject({ error: { code: 'client_not_allowed' } });
  });

  it('serves a client inside them', async () => {
    const { port } = await start({
      access: { allowedClients: parseCidrList(['127.0.0.0/8']), allowedHosts: [] },
    });
    expect((await get(port, 'Host: 127.0.0.1\r\n'))?.status).toBe(200);
  });
});
