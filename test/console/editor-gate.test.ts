/**
 * The editor gate over real TCP on loopback, on the console's default bounds: n8n's answers, its push
 * stream and an upgraded connection pass through whole and in both directions, each side's end reaches
 * the other, a refused peer reaches nothing, a gate whose n8n is down closes the browser's connection
 * instead of holding it, and n8n's name outside N8N_ALLOWED_SUBNET is never connected to. The bounds
 * themselves: editor-gate-bounds.test.ts, editor-gate-flood.test.ts.
 */
import { once } from 'node:events';
import { createServer as createHttpServer, request } from 'node:http';
import { connect, createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { gateLimits, loadConsoleConfig } from '../../app/console/config.js';
import { gateTarget, refuseClients } from '../../app/console/editor-gate.js';
import { parseSubnet, subnetLookup } from '../../app/n8n/subnet-guard.js';
import { parseCidrList } from '../../app/service-kit/cidr.js';
import { closeAll, forget, gateTo as gateWith, listening } from './gate-harness.js';

afterEach(closeAll);

/** The console's own defaults (EDITOR_GATE_* unset). */
const DEFAULTS = gateLimits(loadConsoleConfig({}));

function gateTo(port: number, refused: string[] = []) {
  return gateWith(port, DEFAULTS, { refused: parseCidrList(refused) });
}

/** Everything the socket receives until the other side ends it. */
async function readAll(socket: Socket): Promise<string> {
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  await once(socket, 'end');
  return Buffer.concat(chunks).toString();
}

describe('the editor gate', () => {
  it('passes an HTTP answer through whole: status, headers and a 2 MiB body', async () => {
    const body = 'n8n'.repeat(700_000);
    const n8n = await listening(
      createHttpServer((req, res) => res.writeHead(200, { 'x-from': `n8n ${req.url}` }).end(body)),
    );
    const gate = await gateTo(n8n.port);
    const answer = await new Promise<{ status: number; from: string; body: string }>((resolve, reject) => {
      request({ host: '127.0.0.1', port: gate.port, path: '/rest/settings' }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, from: String(res.headers['x-from']), body: text }),
        );
      })
        .on('error', reject)
        .end();
    });
    expect(answer).toEqual({ status: 200, from: 'n8n /rest/settings', body });
  });

  it('passes a push stream on as it comes, before its end', async () => {
    let push: ((line: string) => void) | undefined;
    const n8n = await listening(
      createHttpServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        push = (line) => res.write(`data: ${line}\n\n`);
        push('first');
      }),
    );
    const gate = await gateTo(n8n.port);
    const browser = connect(gate.port, '127.0.0.1');
    browser.write('GET /rest/push HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    let seen = '';
    browser.on('data', (c: Buffer) => {
      seen += c.toString();
    });
    await expect.poll(() => seen, { timeout: 5000 }).toContain('data: first');
    push?.('second');
    await expect.poll(() => seen, { timeout: 5000 }).toContain('data: second');
    browser.destroy();
  });

  it("carries bytes both ways and passes each side's end on: what was sent after it still arrives", async () => {
    // An echo server that answers the browser's end with a last line of its own, then ends.
    const n8n = await listening(
      createServer((socket) => {
        const got: Buffer[] = [];
        socket.on('data', (c: Buffer) => {
          got.push(c);
          socket.write(c);
        });
        socket.on('end', () => socket.end(`bye after ${Buffer.concat(got).length} bytes`));
      }),
    );
    const gate = await gateTo(n8n.port);
    const browser = connect(gate.port, '127.0.0.1');
    await once(browser, 'connect');
    const all = readAll(browser);
    browser.write('ping ');
    browser.end('pong');
    expect(await all).toBe('ping pongbye after 9 bytes');
  });

  it('closes a refused peer at once: not a byte reaches n8n', async () => {
    let reached = 0;
    const n8n = await listening(
      createServer((socket) => {
        reached += 1;
        socket.end('hello');
      }),
    );
    const gate = await gateTo(n8n.port, ['127.0.0.0/8']);
    const browser = connect(gate.port, '127.0.0.1');
    browser.on('error', () => {});
    const received = readAll(browser).catch(() => '');
    await once(browser, 'close');
    expect(await received).toBe('');
    expect(reached).toBe(0);
    // Control: the same gate without the refusal reaches n8n.
    const open = await gateTo(n8n.port, ['172.30.66.192/26']);
    const other = connect(open.port, '127.0.0.1');
    expect(await readAll(other)).toBe('hello');
    expect(reached).toBe(1);
  });

  it("closes the browser's connection when n8n does not answer, rather than holding it", async () => {
    const down = await listening(createServer());
    const port = down.port;
    await new Promise<void>((resolve) => down.close(() => resolve()));
    forget(down);
    const gate = await gateTo(port);
    const browser = connect(gate.port, '127.0.0.1');
    browser.on('error', () => {});
    await once(browser, 'close');
    expect(browser.bytesRead).toBe(0);
  });
});

describe("the gate and n8n's address (N8N_ALLOWED_SUBNET)", () => {
  /** n8n's name, resolved by a table: 127.0.0.1, where the stand-in listens. */
  const table = (
    _host: string,
    _o: object,
    cb: (e: null, a: { address: string; family: number }[]) => void,
  ) => cb(null, [{ address: '127.0.0.1', family: 4 }]);

  it.each([
    ['inside the subnet: passed through', '127.0.0.0/8', 'hello', 1],
    ['outside it: closed, n8n never reached', '172.30.66.192/26', '', 0],
  ])('n8n resolved %s', async (_what, cidr, answer, reaches) => {
    let reached = 0;
    const n8n = await listening(
      createServer((socket) => {
        reached += 1;
        socket.end('hello');
      }),
    );
    const refusals: string[] = [];
    const lookup = subnetLookup(parseSubnet(cidr), table, (e) => refusals.push(e.message));
    const gate = await gateWith(n8n.port, DEFAULTS, { target: { host: 'n8n', port: n8n.port }, lookup });
    const browser = connect(gate.port, '127.0.0.1');
    browser.on('error', () => {});
    expect(await readAll(browser).catch(() => '')).toBe(answer);
    expect(reached).toBe(reaches);
    expect(refusals).toEqual(
      reaches
        ? []
        : ['n8n at 127.0.0.1 (n8n) is outside N8N_ALLOWED_SUBNET 172.30.66.192/26: not connecting'],
    );
  });
});

describe("the console's own port", () => {
  it('refuses the same peers as its gate, and only them', async () => {
    const console = await listening(createHttpServer((_req, res) => res.end('console')));
    refuseClients(console, parseCidrList(['127.0.0.1/32']));
    const refused = connect(console.port, '127.0.0.1');
    refused.on('error', () => {});
    refused.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    expect(await readAll(refused).catch(() => '')).toBe('');

    const other = await listening(createHttpServer((_req, res) => res.end('console')));
    refuseClients(other, parseCidrList(['10.0.0.0/8']));
    const admitted = connect(other.port, '127.0.0.1');
    admitted.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect(await readAll(admitted)).toMatch(/200 OK[\s\S]*console$/);
  });
});

describe('gateTarget', () => {
  it.each([
    ['http://n8n:5678', { host: 'n8n', port: 5678 }],
    ['http://n8n', { host: 'n8n', port: 80 }],
    ['https://n8n.lab.example.org/', { host: 'n8n.lab.example.org', port: 443 }],
    ['http://[::1]:5678', { host: '::1', port: 5678 }],
  ])('%s -> %o', (url, target) => {
    expect(gateTarget(url)).toEqual(target);
  });
});
