/**
 * A stand-in of n8n over real HTTP on loopback for the client's tests: records every call (method, path,
 * JSON body, headers) and answers with the test's handler. Closed after each test.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

export interface Call {
  method: string;
  url: string;
  body: unknown;
  headers: IncomingMessage['headers'];
}
export type Handler = (call: Call, res: ServerResponse) => void;

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

export async function standIn(handler: Handler): Promise<{ url: string; calls: Call[] }> {
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
        body: text ? JSON.parse(text) : undefined,
        headers: req.headers,
      };
      calls.push(call);
      handler(call, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}
export const send = (
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string | string[]> = {},
) => res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
