/**
 * N8N_ALLOWED_SUBNET's guard over real sockets on loopback: n8n's name resolving inside the subnet is
 * connected to, outside it nothing is (not a byte, not a connection), for net.connect's lookup and for
 * fetch alike; installed process-wide, it guards plain fetch and the n8n client, and only n8n's name.
 */
import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, connect, type Server } from 'node:net';
import { getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { PublicApi } from '../../app/n8n/client.js';
import {
  guardN8nConnections,
  OutsideSubnetError,
  parseSubnet,
  type Resolve,
  subnetDispatcher,
  subnetLookup,
  withRefusalShown,
} from '../../app/n8n/subnet-guard.js';

const servers: Server[] = [];
const before = getGlobalDispatcher();
afterEach(async () => {
  setGlobalDispatcher(before);
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A stand-in for n8n on 127.0.0.1 that counts who reached it. */
async function n8n(): Promise<{ port: number; reached: () => number }> {
  let reached = 0;
  const server = createHttpServer((_req, res) => res.end('n8n'));
  server.on('connection', () => {
    reached += 1;
  });
  servers.push(server.listen(0, '127.0.0.1'));
  await once(server, 'listening');
  return { port: (server.address() as AddressInfo).port, reached: () => reached };
}

/** A resolver from a table: the name `n8n` is 127.0.0.1, as Docker's resolver would give n8n's address. */
const table =
  (entries: Record<string, string[]>): Resolve =>
  (host, _options, callback) => {
    const addresses = entries[host];
    if (addresses === undefined)
      return callback(Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
    callback(
      null,
      addresses.map((address) => ({ address, family: 4 })),
    );
  };
const N8N = table({ n8n: ['127.0.0.1'], 'two-faced': ['127.0.0.1', '192.168.1.20'] });

const INSIDE = parseSubnet('127.0.0.0/8');
const LAB = parseSubnet('172.30.66.192/26');

describe('parseSubnet', () => {
  it('takes an IPv4 network or a bare address, and says what it wants otherwise', () => {
    expect(LAB.cidr).toBe('172.30.66.192/26');
    expect([
      LAB.includes('172.30.66.200'),
      LAB.includes('172.30.66.10'),
      LAB.includes('::ffff:172.30.66.193'),
    ]).toEqual([true, false, true]);
    expect(parseSubnet(' 10.1.2.3 ').cidr).toBe('10.1.2.3/32');
    for (const bad of ['n8n', '10.0.0.0/33', '::1/128', '10.0.0.0/8/1', '10.0.0.0/', ''])
      expect(() => parseSubnet(bad), bad).toThrow('must be an IPv4 network, a.b.c.d/n');
  });
});

describe("net.connect with the guard's lookup (the editor gate)", () => {
  async function connectTo(host: string, lookup: ReturnType<typeof subnetLookup>, port: number) {
    const socket = connect({ host, port, lookup });
    const outcome = await new Promise<string>((resolve) => {
      socket.once('connect', () => resolve('connected'));
      socket.once('error', (e) => resolve(e.message));
    });
    socket.destroy();
    return outcome;
  }

  it('connects to a name inside the subnet, and to nothing outside it', async () => {
    const stand = await n8n();
    const heard: string[] = [];
    expect(await connectTo('n8n', subnetLookup(INSIDE, N8N), stand.port)).toBe('connected');
    expect(
      await connectTo(
        'n8n',
        subnetLookup(LAB, N8N, (e) => heard.push(e.message)),
        stand.port,
      ),
    ).toBe('n8n at 127.0.0.1 (n8n) is outside N8N_ALLOWED_SUBNET 172.30.66.192/26: not connecting');
    // A name with one address outside is refused whole, rather than one address picked.
    expect(await connectTo('two-faced', subnetLookup(INSIDE, N8N), stand.port)).toMatch(
      /^n8n at 192\.168\.1\.20 \(two-faced\) is outside N8N_ALLOWED_SUBNET 127\.0\.0\.0\/8/,
    );
    expect(stand.reached()).toBe(1);
    expect(heard).toHaveLength(1);
  });

  it("with the system's resolver: localhost inside 127.0.0.0/8, refused from the lab's subnet", async () => {
    const stand = await n8n();
    expect(await connectTo('localhost', subnetLookup(INSIDE), stand.port)).toBe('connected');
    expect(await connectTo('localhost', subnetLookup(LAB), stand.port)).toMatch(
      /^n8n at 127\.0\.0\.1 \(localhost\)/,
    );
    expect(stand.reached()).toBe(1);
  });
});

describe("fetch through the guard's dispatcher (approvals, test alerts, the n8n client)", () => {
  it('answers from a name inside the subnet; outside, fetch fails with the one line and n8n never hears', async () => {
    const stand = await n8n();
    const url = `http://n8n:${stand.port}/rest/settings`;
    const inside = await fetch(url, { dispatcher: subnetDispatcher('n8n', subnetLookup(INSIDE, N8N)) });
    expect(await inside.text()).toBe('n8n');
    const refused = fetch(url, { dispatcher: subnetDispatcher('n8n', subnetLookup(LAB, N8N)) });
    await expect(refused).rejects.toMatchObject({
      message: 'fetch failed',
      cause: expect.any(OutsideSubnetError),
    });
    const shown = withRefusalShown((input, init) =>
      fetch(input, { ...init, dispatcher: subnetDispatcher('n8n', subnetLookup(LAB, N8N)) }),
    );
    await expect(shown(url)).rejects.toThrow(
      'n8n at 127.0.0.1 (n8n) is outside N8N_ALLOWED_SUBNET 172.30.66.192/26: not connecting',
    );
    expect(stand.reached()).toBe(1);
  });

  it('installed for the process: plain fetch and the n8n client are guarded, other hosts are not', async () => {
    const stand = await n8n();
    expect(guardN8nConnections(`http://localhost:${stand.port}`, LAB)).toBeTypeOf('function');
    await expect(withRefusalShown(fetch)(`http://localhost:${stand.port}/`)).rejects.toThrow(
      /^n8n at 127\.0\.0\.1 \(localhost\) is outside N8N_ALLOWED_SUBNET 172\.30\.66\.192\/26/,
    );
    const api = new PublicApi({ url: `http://localhost:${stand.port}`, timeoutMs: 2000 }, 'key');
    await expect(api.getWorkflowsPage()).rejects.toThrow(
      /^n8n unreachable at http:\/\/localhost:\d+ \(fetch failed: n8n at 127\.0\.0\.1 \(localhost\) is outside/,
    );
    expect(stand.reached()).toBe(0);
    // Not n8n's name: resolved as ever.
    expect(await (await fetch(`http://127.0.0.1:${stand.port}/`)).text()).toBe('n8n');
  });

  it('no subnet: no guard; a literal address outside the subnet refused at once', () => {
    const installed = getGlobalDispatcher();
    expect(guardN8nConnections('http://n8n:5678', null)).toBeUndefined();
    expect(getGlobalDispatcher()).toBe(installed);
    expect(() => guardN8nConnections('http://10.9.8.7:5678', LAB)).toThrow(
      'n8n at 10.9.8.7 is outside N8N_ALLOWED_SUBNET 172.30.66.192/26: not connecting',
    );
    expect(guardN8nConnections('http://172.30.66.200:5678', LAB)).toBeTypeOf('function');
  });

  it("the undici package is the major Node's own fetch is built on (its dispatcher is handed to that fetch)", async () => {
    const { createRequire } = await import('node:module');
    const { version } = createRequire(import.meta.url)('undici/package.json') as { version: string };
    expect(version.split('.')[0]).toBe(process.versions.undici?.split('.')[0]);
  });
});
