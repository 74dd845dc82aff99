/**
 * The HTTP requests a tool has sent and not yet had answered, read from Node's diagnostics channels (fetch's
 * undici ones and node:http's), so that a run that stops waiting on an answer can say which answer: no code
 * of the clients changes for it.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';

export interface InFlight {
  /** "POST http://n8n:5678/webhook/x (12 s)" for each request not yet answered, oldest first. */
  pending(): string[];
  stop(): void;
}

interface Sent {
  line: string;
  at: number;
}

/** What a node:http ClientRequest shows of where it goes. */
interface HttpRequestView {
  method: string;
  protocol: string;
  path: string;
  socketPath?: string;
  getHeader(name: string): unknown;
}

const httpUrl = (r: HttpRequestView) =>
  r.socketPath ? `unix:${r.socketPath}${r.path}` : `${r.protocol}//${String(r.getHeader('host'))}${r.path}`;

export function watchRequests(): InFlight {
  const sent = new Map<object, Sent>();
  const add = (key: object, method: string, url: string) =>
    sent.set(key, { line: `${method} ${url}`, at: performance.now() });
  const drop = (key: object) => sent.delete(key);
  const handlers: [string, (message: unknown) => void][] = [
    [
      'undici:request:create',
      (m) => {
        const { request } = m as { request: { method: string; origin: string; path: string } };
        add(request, request.method, `${request.origin}${request.path}`);
      },
    ],
    ['undici:request:trailers', (m) => drop((m as { request: object }).request)],
    ['undici:request:error', (m) => drop((m as { request: object }).request)],
    [
      'http.client.request.start',
      (m) => {
        const { request } = m as { request: HttpRequestView };
        add(request, request.method, httpUrl(request));
      },
    ],
    ['http.client.response.finish', (m) => drop((m as { request: object }).request)],
    ['http.client.request.error', (m) => drop((m as { request: object }).request)],
  ];
  for (const [name, handler] of handlers) subscribe(name, handler);
  return {
    pending: () =>
      [...sent.values()]
        .sort((a, b) => a.at - b.at)
        .map((s) => `${s.line} (${Math.round((performance.now() - s.at) / 1000)} s)`),
    stop: () => {
      for (const [name, handler] of handlers) unsubscribe(name, handler);
    },
  };
}
