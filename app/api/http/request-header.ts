/** A request header read from Node's raw header list, as the Web Request would give it. */
import type { Context } from 'hono';
import type { AppEnv } from './env.js';

/**
 * A request header as the Web Request's `headers.get(name)` gives it (a repeated field joined with
 * ", "), read from Node's raw header list on a socket. Asking the Web Request builds a Headers object
 * of every header the request carries, which a POST paid twice per request (its type and length);
 * Node's own `incoming.headers` would not do either, since it keeps only the first of a repeated
 * Content-Type. `name` is lower case. Under `app.request()` (no socket) it is the Web Request's.
 */
export function requestHeader(c: Context<AppEnv>, name: string): string | undefined {
  const incoming = c.env?.incoming;
  if (incoming === undefined) return c.req.header(name);
  const raw = incoming.rawHeaders;
  let value: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const key = raw[i] as string;
    if (key.length !== name.length || key.toLowerCase() !== name) continue;
    const next = raw[i + 1] as string;
    value = value === undefined ? next : `${value}, ${next}`;
  }
  return value;
}
