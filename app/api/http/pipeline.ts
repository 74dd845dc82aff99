/** The mock API's pipeline around the router: access checks, the route, the journal and one log line a request. */
import type { Hono } from 'hono';
import { iso } from '../store/clock.js';
import type { Store } from '../store/store.js';
import type { AccessCheck } from './access.js';
import type { AppEnv } from './env.js';
import { renderError } from './errors.js';

export type LogLine = (line: string) => void;

type Fetch = Hono<AppEnv>['fetch'];

export interface PipelineDeps {
  store: Store;
  log: LogLine;
  logError: (err: unknown) => void;
  realNow: () => number;
  checkAccess: AccessCheck;
}

/**
 * The service's pipeline around the router: access checks, then the route, then the journal and one
 * JSON log line per request. Every request is recorded in the journal (apart from the health and state
 * reads, which observers poll and which would crowd out the requests a verifier is looking for), with
 * the status it got, refusals included.
 *
 * It wraps the router's fetch instead of being Hono middleware: with no middleware, a route that
 * answers synchronously (every GET) stays synchronous end to end, and @hono/node-server writes its
 * answer at once instead of through a chain of promises (docs/hardening.md).
 */
export function withPipeline(route: Fetch, deps: PipelineDeps): Fetch {
  const { store, log, logError, realNow, checkAccess } = deps;
  return function servicePipeline(request, env, executionCtx) {
    const started = performance.now();
    let res: Response | Promise<Response>;
    try {
      checkAccess(request, (env as AppEnv['Bindings'] | undefined)?.incoming);
      res = route(request, env, executionCtx);
    } catch (err) {
      res = renderError(err instanceof Error ? err : new Error(String(err)), logError);
    }
    if (res instanceof Promise) return res.then((done) => finish(request, done, started));
    return finish(request, res, started);
  };

  function finish(request: Request, res: Response, started: number): Response {
    const method = request.method;
    const path = rawPath(request.url);
    const status = res.status;
    if (!((method === 'GET' || method === 'HEAD') && (path === '/health' || path === '/state'))) {
      store.journal.record(method, path, status, store.now());
    }
    log(logLine(iso(realNow()), method, path, status, performance.now() - started));
    return res;
  }
}

/** One request's log line: `{"time","method","path","status","duration_ms"}`, duration in µs precision. */
export function logLine(time: string, method: string, path: string, status: number, ms: number): string {
  return `{"time":"${time}","method":${JSON.stringify(method)},"path":${JSON.stringify(path)},"status":${status},"duration_ms":${Math.round(ms * 1000) / 1000}}`;
}

/** The path as the client sent it: not decoded, without the query string. */
export function rawPath(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start === -1) return '/';
  const query = url.indexOf('?', start);
  return query === -1 ? url.slice(start) : url.slice(start, query);
}
