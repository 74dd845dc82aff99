/**
 * The one client of the mock API, for the acceptance matrix, the stage checker, the reference workflow's
 * host and the console. Three ways in: a URL (make run, make e2e), the mock API's Unix socket (the compose
 * lab: nothing else has a network path to it), or a command that prints an envelope (a host reaching into
 * a container with `docker compose exec`).
 */
import { spawn } from 'node:child_process';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { z } from 'zod';

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export interface ApiAnswer {
  status: number;
  /** The parsed JSON answer; the raw text when it is not JSON; null when empty. */
  body: unknown;
}

export interface ApiResponse extends ApiAnswer {
  /** The answer as it came (the console compares states by it). */
  text: string;
  etag: string | undefined;
}

export interface RequestOptions {
  /** Sent as If-None-Match: a 304 then costs the mock API nothing. */
  ifNoneMatch?: string | undefined;
}

/** What a workflow's HTTP nodes need of the mock API (the reference workflow; a scripted one in tests). */
export interface ApiCaller {
  /** For messages and reports: `http://127.0.0.1:8081`, `unix:/run/mock-api/api.sock`, `exec: <prefix>`. */
  readonly describe: string;
  /** One JSON request; rejects only when no answer came (refused, timed out, no envelope). */
  request(method: HttpMethod, path: string, body?: unknown): Promise<ApiAnswer>;
}

export interface MockApiClient extends ApiCaller {
  request(method: HttpMethod, path: string, body?: unknown, options?: RequestOptions): Promise<ApiResponse>;
  /** Frees kept-alive connections; the client may not be used afterwards. */
  close(): void;
}

export type MockApiAddress =
  | { kind: 'http'; url: string }
  | { kind: 'socket'; path: string }
  | { kind: 'exec'; prefix: string };

export interface ClientOptions {
  /** No answer within this long rejects the request. */
  timeoutMs?: number;
  /** Aborts every request in flight (the reference host cancels its runs with it). */
  signal?: AbortSignal;
}

export function mockApiClient(address: MockApiAddress, options: ClientOptions = {}): MockApiClient {
  const timeoutMs = options.timeoutMs ?? 30_000;
  return address.kind === 'exec'
    ? execClient(address.prefix, timeoutMs)
    : httpClient(address, timeoutMs, options.signal);
}

export function parseBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * node:http over TCP or the socket. It sends no Origin (the mock API refuses requests that carry one) and
 * always a Content-Length; on the socket the Host is `localhost`, a name the mock API serves.
 */
function httpClient(
  address: { kind: 'http'; url: string } | { kind: 'socket'; path: string },
  timeoutMs: number,
  signal: AbortSignal | undefined,
): MockApiClient {
  const url = address.kind === 'http' ? new URL(address.url) : null;
  const secure = url?.protocol === 'https:';
  const agent = secure
    ? new HttpsAgent({ keepAlive: true, maxSockets: 8 })
    : new HttpAgent({ keepAlive: true, maxSockets: 8 });
  const send = secure ? httpsRequest : httpRequest;
  const base =
    url === null
      ? { socketPath: address.kind === 'socket' ? address.path : '', host: 'localhost' }
      : { hostname: url.hostname.replace(/^\[|\]$/g, ''), port: url.port || (secure ? 443 : 80) };
  const prefix = url === null ? '' : url.pathname.replace(/\/+$/, '');
  return {
    describe:
      url === null ? `unix:${address.kind === 'socket' ? address.path : ''}` : `${url.origin}${prefix}`,
    close: () => agent.destroy(),
    request(method, path, body, requestOptions = {}) {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      return new Promise((resolve, reject) => {
        const req = send(
          {
            ...base,
            agent,
            method,
            path: `${prefix}${path}`,
            timeout: timeoutMs,
            ...(signal ? { signal } : {}),
            headers: {
              ...(url === null ? { host: 'localhost' } : {}),
              accept: 'application/json',
              ...(payload === undefined
                ? {}
                : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
              ...(requestOptions.ifNoneMatch === undefined
                ? {}
                : { 'if-none-match': requestOptions.ifNoneMatch }),
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              resolve({
                status: res.statusCode ?? 0,
                body: parseBody(text),
                text,
                etag: typeof res.headers.etag === 'string' ? res.headers.etag : undefined,
              });
            });
            res.on('error', reject);
          },
        );
        req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
        req.on('error', reject);
        req.end(payload);
      });
    },
  };
}

const EnvelopeSchema = z.object({ status: z.int(), body: z.unknown() });

/**
 * Runs `<prefix> METHOD PATH [JSON]` and reads the one-line envelope `{"status": ..., "body": ...}` it
 * prints. The arguments go through `sh -c '<prefix> "$@"'` so the prefix may be a shell phrase while the
 * JSON body is passed verbatim, never re-parsed by the shell.
 */
function execClient(prefix: string, timeoutMs: number): MockApiClient {
  return {
    describe: `exec: ${prefix}`,
    close: () => {},
    request(method, path, body) {
      const args = [method, path];
      if (body !== undefined) args.push(JSON.stringify(body));
      return new Promise((resolve, reject) => {
        const child = spawn('sh', ['-c', `${prefix} "$@"`, 'api-exec', ...args], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          stdout += chunk;
        });
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
          stderr += chunk;
        });
        const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
        child.on('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
        child.on('close', (code, signal) => {
          clearTimeout(timer);
          // The envelope decides, not the exit code: a 4xx answer is a result, not a transport failure.
          const lastLine = stdout.trim().split('\n').at(-1) ?? '';
          const envelope = EnvelopeSchema.safeParse(parseBody(lastLine));
          if (envelope.success) {
            const answer = envelope.data.body ?? null;
            resolve({
              status: envelope.data.status,
              body: answer,
              text: answer === null ? '' : JSON.stringify(answer),
              etag: undefined,
            });
            return;
          }
          const why = signal ? `killed by ${signal}` : `exit code ${code}`;
          reject(
            new Error(
              `api-exec ${method} ${path}: no {"status","body"} line (${why}): ${stderr.trim() || stdout.trim()}`,
            ),
          );
        });
      });
    },
  };
}
