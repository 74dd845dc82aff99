/**
 * A stand-in of n8n over real HTTP on loopback, for every test that talks to n8n (the client's, the
 * console's, the reset's; the same stand-in serves where a test needs the mock API on a socket): records
 * every call (method, path, body as sent and as JSON, headers) and answers with the test's handler.
 * Closed after each test, or (one made in beforeAll) after the file's tests.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach } from 'vitest';

export interface Call {
  method: string;
  url: string;
  /** The body as sent, and read as JSON (undefined when there is none). */
  text: string;
  body: unknown;
  headers: IncomingMessage['headers'];
}
export type Handler = (call: Call, res: ServerResponse) => void;

export interface StandIn {
  url: string;
  calls: Call[];
  server: Server;
}

const close = (servers: Server[]) =>
  Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
const forTest: Server[] = [];
const forFile: Server[] = [];
afterEach(() => close(forTest));
afterAll(() => close(forFile));

export async function standIn(handler: Handler, lasts: 'test' | 'file' = 'test'): Promise<StandIn> {
  const calls: Call[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (d) => {
      text += d;
    });
    req.on('end', () => {
      const call = {
        method: req.method ?? '',
        url: req.url ?? '',
        text,
        body: text ? JSON.parse(text) : undefined,
        headers: req.headers,
      };
      calls.push(call);
      handler(call, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  (lasts === 'test' ? forTest : forFile).push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, server };
}
export const send = (
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string | string[]> = {},
) => res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
