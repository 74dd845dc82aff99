import { connect, type Socket } from 'node:net';
import { createApp, defaultDeps } from '../../app/api/app.js';
import { loadConfig } from '../../app/api/config.js';
import type { AccessPolicy } from '../../app/api/http/access.js';
import { type RunningServer, startServer } from '../../app/api/server.js';
import { createClock } from '../../app/api/store/clock.js';
import { Store } from '../../app/api/store/store.js';

export interface ParsedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  json: unknown;
}

/** A real server on a random loopback port, with its store at hand for assertions. */
export async function startTestServer(
  options: { access?: AccessPolicy; env?: Record<string, string>; logError?: (err: unknown) => void } = {},
): Promise<{ running: RunningServer; store: Store; port: number; close: () => Promise<void> }> {
  const store = new Store(createClock());
  const app = createApp(
    defaultDeps({
      store,
      ...(options.access && { access: options.access }),
      ...(options.logError && { logError: options.logError }),
    }),
  );
  const running = await startServer(app, loadConfig([], { HOST: '127.0.0.1', PORT: '0', ...options.env }));
  const port = Number(new URL(running.url).port);
  return { running, store, port, close: () => running.close(200) };
}

export interface ExchangeOptions {
  halfClose?: boolean;
  gapMs?: number;
  timeoutMs?: number;
}

/**
 * Writes raw bytes (each chunk a separate write, `gapMs` apart) and collects everything the server
 * sends until it closes the connection or `timeoutMs` passes. `halfClose` ends our side after writing.
 */
export function rawExchange(
  port: number,
  chunks: (string | Buffer)[],
  options?: ExchangeOptions & { raw?: false },
): Promise<string>;
/** The same, resolving to the bytes as received (`raw: true`), for bodies framed by their byte length. */
export function rawExchange(
  port: number,
  chunks: (string | Buffer)[],
  options: ExchangeOptions & { raw: true },
): Promise<Buffer>;
export function rawExchange(
  port: number,
  chunks: (string | Buffer)[],
  options: ExchangeOptions & { raw?: boolean } = {},
): Promise<string | Buffer> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), options.timeoutMs ?? 2000);
    socket.on('data', (d) => received.push(d));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ECONNRESET') reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const bytes = Buffer.concat(received);
      resolve(options.raw ? bytes : bytes.toString('utf8'));
    });
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) return;
        socket.write(chunk);
        if (options.gapMs) await new Promise((r) => setTimeout(r, options.gapMs));
      }
      if (options.halfClose) socket.end();
    });
  });
}

/** Splits a stream of HTTP/1.1 responses (Content-Length framed, as this service always sends). */
export function parseResponses(text: string): ParsedResponse[] {
  const out: ParsedResponse[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd === -1) break;
    const [statusLine = '', ...lines] = rest.slice(0, headEnd).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const bodyBytes = Buffer.from(rest.slice(headEnd + 4), 'utf8').subarray(0, length);
    const body = bodyBytes.toString('utf8');
    out.push({
      status: Number(statusLine.split(' ')[1]),
      headers,
      body,
      json: body ? JSON.parse(body) : undefined,
    });
    rest = rest.slice(headEnd + 4 + body.length);
  }
  return out;
}

export const post = (path: string, body: string, extra = '') =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;
