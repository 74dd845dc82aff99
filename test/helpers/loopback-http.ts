/**
 * HTTP on loopback as the tests of the guards use it: an app served on a free port of 127.0.0.1, and
 * requests whose Host, Origin, Sec-Fetch headers and client address are the test's to set.
 */
import { type IncomingHttpHeaders, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';

export interface Served {
  url: string;
  port: number;
  /** Ends the connections still open (an event stream, a keep-alive) and stops listening. */
  close(): Promise<void>;
}

/** A fetch handler (a Hono app's `fetch`) on 127.0.0.1, on a port free when it starts. */
export async function serveOnLoopback(fetch: Parameters<typeof serve>[0]['fetch']): Promise<Served> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise((resolve) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  /** One header, its values joined by `; `, or '' when it is not there. */
  header(name: string): string;
  body: string;
  /** From the request's start to its answer's end. */
  ms: number;
}

export interface CallInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** The client's own loopback address (the system's choice, 127.0.0.1, when not given). */
  from?: string;
}

/**
 * One request with node:http, so that the Host header (fetch sets its own), the Origin, Sec-Fetch and
 * X-Forwarded-For headers and the client's address are the test's. An event stream never ends: its first
 * event is the answer.
 */
export function call(base: string, path: string, init: CallInit = {}): Promise<Answer> {
  const url = new URL(base);
  const { body } = init;
  const began = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname: url.hostname,
        port: url.port,
        method: init.method ?? 'GET',
        path,
        ...(init.from === undefined ? {} : { localAddress: init.from }),
        headers: {
          host: url.host,
          ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
          ...init.headers,
        },
      },
      (res) => {
        let text = '';
        const answer = (): Answer => ({
          status: res.statusCode ?? 0,
          headers: res.headers,
          header: (name) => [res.headers[name] ?? ''].flat().join('; '),
          body: text,
          ms: performance.now() - began,
        });
        res.on('data', (d) => {
          text += d;
          if (res.headers['content-type']?.startsWith('text/event-stream') && text.includes('\n\n')) {
            res.destroy();
            resolve(answer());
          }
        });
        res.on('end', () => resolve(answer()));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
