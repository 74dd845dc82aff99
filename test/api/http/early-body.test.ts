/**
 * readBodyFirst (app/api/http/early-body.ts) on a real socket: a JSON POST within the limit reaches the
 * listener with its whole body already read; any other request reaches it at once, body unread (so the
 * POST rules still refuse from the headers alone); a body cut short reaches it with no body.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../../app/api/http/body-headers.js';
import { readBodyFirst, takeEarlyBody } from '../../../app/api/http/early-body.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** Serves one request; resolves to what the listener saw of it. */
function serveOne(): Promise<{ port: number; seen: Promise<{ early?: string; ended: boolean }> }> {
  return new Promise((resolve) => {
    let report: (v: { early?: string; ended: boolean }) => void = () => {};
    const seen = new Promise<{ early?: string; ended: boolean }>((r) => {
      report = r;
    });
    server = createServer(
      readBodyFirst((req: IncomingMessage, res) => {
        const early = takeEarlyBody(req);
        report({ early: early?.toString(), ended: req.readableEnded });
        res.end('{}');
        req.resume();
      }),
    );
    server.listen(0, '127.0.0.1', () => {
      const address = server?.address();
      resolve({ port: typeof address === 'object' && address ? address.port : 0, seen });
    });
  });
}

function send(port: number, head: string, body: string, end = true): void {
  const socket = connect(port, '127.0.0.1', () => {
    socket.write(`${head}\r\n\r\n${body}`);
    if (!end) setTimeout(() => socket.destroy(), 50);
  });
  socket.on('data', () => socket.end());
  socket.on('error', () => {});
}

const post = (type: string, length: number | string) =>
  `POST /cases HTTP/1.1\r\nHost: localhost\r\nContent-Type: ${type}\r\nContent-Length: ${length}`;

describe('readBodyFirst', () => {
  it('hands on a JSON POST within the limit with its whole body read', async () => {
    const { port, seen } = await serveOne();
    const body = JSON.stringify({ event_id: 'e', text: 'ü'.repeat(3000) });
    send(port, post('application/json; charset=utf-8', Buffer.byteLength(body)), body);
    expect(await seen).toEqual({ early: body, ended: true });
  });

  it.each([
    ['a body of another type', post('text/plain', 2), '{}'],
    ['a length over the limit', post('application/json', MAX_BODY_BYTES + 1), '{}'],
    ['a GET', 'GET /health HTTP/1.1\r\nHost: localhost', ''],
  ])('hands on %s at once, its body unread', async (_name, head, body) => {
    const { port, seen } = await serveOne();
    send(port, head, body);
    const { early } = await seen;
    expect(early).toBeUndefined();
  });

  it('hands on a body cut short without a body', async () => {
    const { port, seen } = await serveOne();
    send(port, post('application/json', 100), '{"event_id":', false);
    expect(await seen).toEqual({ early: undefined, ended: false });
  });
});
