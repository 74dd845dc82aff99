import { Agent, request } from 'node:http';

export interface ApiAnswer {
  status: number;
  etag: string | undefined;
  body: string;
}

export interface MockApi {
  /** A JSON request to the mock API; rejects only when no answer came (refused, timed out). */
  call(method: 'GET' | 'POST', path: string, body?: unknown, ifNoneMatch?: string): Promise<ApiAnswer>;
  readonly describe: string;
  close(): void;
}

/**
 * The console's only way to the mock API: over TCP (make run / make e2e set-ups) or over the Unix socket
 * the mock API listens on in the compose lab (the console has no network path to it there). Host is
 * `localhost` on the socket: the mock API accepts it and refuses names it does not serve.
 */
export function mockApiClient(target: { url: string } | { socketPath: string }, timeoutMs = 5000): MockApi {
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const base =
    'socketPath' in target
      ? { socketPath: target.socketPath, headers: { host: 'localhost' } }
      : (() => {
          const url = new URL(target.url);
          return { hostname: url.hostname.replace(/^\[|\]$/g, ''), port: url.port || 80, headers: {} };
        })();
  return {
    describe: 'socketPath' in target ? `unix:${target.socketPath}` : target.url,
    close: () => agent.destroy(),
    call(method, path, body, ifNoneMatch) {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      return new Promise((resolve, reject) => {
        const req = request(
          {
            ...base,
            agent,
            method,
            path,
            timeout: timeoutMs,
            headers: {
              ...base.headers,
              accept: 'application/json',
              ...(payload === undefined
                ? {}
                : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
              ...(ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch }),
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                etag: typeof res.headers.etag === 'string' ? res.headers.etag : undefined,
                body: Buffer.concat(chunks).toString('utf8'),
              }),
            );
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
