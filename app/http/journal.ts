import type { MiddlewareHandler } from 'hono';
import { iso } from '../store/clock.js';
import type { Store } from '../store/store.js';
import type { AppEnv } from './env.js';

export type LogLine = (line: string) => void;

/**
 * Records every request in the journal (apart from the health and state reads, which observers poll and
 * which would crowd out the requests a verifier is looking for) and writes one JSON log line per request.
 * Runs outermost, so refusals by any later middleware or handler are journaled with their status.
 */
export function journalAndLog(store: Store, log: LogLine, realNow: () => number): MiddlewareHandler<AppEnv> {
  return async function journalAndLogMiddleware(c, next) {
    const started = performance.now();
    await next();
    const method = c.req.method;
    const path = rawPath(c.req.url);
    const status = c.res.status;
    if (!((method === 'GET' || method === 'HEAD') && (path === '/health' || path === '/state'))) {
      store.journal.record(method, path, status, store.now());
    }
    const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
    log(
      `{"time":"${iso(realNow())}","method":${JSON.stringify(method)},"path":${JSON.stringify(path)},"status":${status},"duration_ms":${durationMs}}`,
    );
  };
}

/** The path as the client sent it: not decoded, without the query string. */
export function rawPath(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start === -1) return '/';
  const query = url.indexOf('?', start);
  return query === -1 ? url.slice(start) : url.slice(start, query);
}
