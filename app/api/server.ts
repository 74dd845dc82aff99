/** Binds the mock API to its port or Unix socket, answering the HTTP parser's refusals in the contract's shape. */
import { chmodSync, lstatSync, unlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { getRequestListener, RequestError } from '@hono/node-server';
import type { Hono } from 'hono';
import type { Config } from './config.js';
import { readBodyFirst } from './http/early-body.js';
import type { AppEnv } from './http/env.js';
import { ApiError, rawErrorResponse, renderError } from './http/errors.js';
import type { ErrorCode } from './schemas/error.js';

export interface RunningServer {
  server: Server;
  url: string;
  /** Stops accepting, lets in-flight requests finish (at most graceMs), then closes what is left. */
  close(graceMs?: number): Promise<void>;
}

/**
 * Binds the app. Node's HTTP parser refuses some requests before the app sees them (a malformed
 * Content-Length, both Content-Length and chunked, a body running past its length into garbage); its
 * bare 400 would break the contract, so clientError answers in the contract's error shape instead.
 */
export function startServer(
  app: Hono<AppEnv>,
  config: Config,
  logError: (err: unknown) => void = () => {},
  /** Listen on this Unix socket instead of config.host:port (mode 0600; a stale socket is replaced). */
  socketPath?: string,
): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    // The adapter's listener, built here rather than through serve(), for its errorHandler: a request
    // target or Host the adapter cannot turn into a URL (`*`, a backslash, `Host: a b`) would otherwise
    // get a bare, empty 400 before the app sees it.
    const listener = getRequestListener(app.fetch, {
      hostname: config.host,
      errorHandler: (err) =>
        renderError(
          err instanceof RequestError
            ? new ApiError('bad_request', 'The request target or Host header is not a valid URL.', {
                headers: { connection: 'close' },
              })
            : toError(err),
          logError,
        ),
    });
    const server = createServer(
      {
        headersTimeout: config.headersTimeoutMs,
        requestTimeout: config.requestTimeoutMs,
        keepAliveTimeout: config.keepAliveTimeoutMs,
        connectionsCheckingInterval: config.connectionsCheckIntervalMs,
        // Node answers a Host-less HTTP/1.1 request itself with a bare, empty 400; the access middleware
        // refuses it instead, in the contract's error shape.
        requireHostHeader: false,
      },
      readBodyFirst(listener),
    );
    server.once('error', reject);
    server.on('clientError', answerClientError);
    // An Expect other than 100-continue gets a bare, empty 417 from Node. RFC 9110 lets a server ignore
    // expectations it does not know, so the request is served like any other (and answered in JSON).
    server.on('checkExpectation', (req, res) => server.emit('request', req, res));
    if (socketPath === undefined) server.listen(config.port, config.host);
    else {
      removeStaleSocket(socketPath);
      server.listen(socketPath);
    }
    server.once('listening', () => {
      server.off('error', reject);
      if (socketPath !== undefined) {
        chmodSync(socketPath, 0o600);
        resolve({ server, url: `unix:${socketPath}`, close: (graceMs) => closeGracefully(server, graceMs) });
        return;
      }
      const { address, port } = server.address() as AddressInfo;
      const host = address.includes(':') ? `[${address}]` : address;
      resolve({
        server,
        url: `http://${host}:${port}`,
        close: (graceMs) => closeGracefully(server, graceMs),
      });
    });
  });
}

/** A socket file left by a killed process would make listen() fail with EADDRINUSE; anything else stays. */
function removeStaleSocket(path: string): void {
  try {
    if (lstatSync(path).isSocket()) unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [code, message] = describeParserError(err.code);
  socket.end(rawErrorResponse(code, message));
}

function describeParserError(code: string | undefined): [ErrorCode, string] {
  switch (code) {
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return [
        'invalid_content_length',
        'Content-Length must be a single decimal integer, without chunked encoding.',
      ];
    case 'HPE_HEADER_OVERFLOW':
      return ['header_too_large', 'The request headers are too large.'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'HPE_HEADERS_TIMEOUT':
      return ['request_timeout', 'The request took too long to arrive.'];
    default:
      return ['bad_request', 'The request is not valid HTTP/1.1; the connection is closed.'];
  }
}

function closeGracefully(server: Server, graceMs = 1500): Promise<void> {
  return new Promise((resolve) => {
    // A connection whose request finishes during the grace period turns idle and would hold close()
    // open until its keep-alive timeout: sweep idle connections until close() completes.
    const sweep = setInterval(() => server.closeIdleConnections(), 20);
    const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(deadline);
      resolve();
    });
    server.closeIdleConnections();
  });
}

const toError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));
