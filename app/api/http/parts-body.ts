/** A 200 whose body is held as cached parts and written to the socket without joining them. */
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import type { AppEnv } from './env.js';

/**
 * A 200 whose body is held as parts (cached buffers shared between readers), sent without joining them.
 * On a socket it is written straight to Node's response, one write per part, and the adapter is told it
 * was sent (@hono/node-server's RESPONSE_ALREADY_SENT; the adapter knows it only as the runtime's own
 * Response, which it is: this module is loaded before startServer puts the adapter's Response in place).
 * Joining them instead (the whole answer allocated and copied per read) held GET /state's p99 at several
 * times what it is this way (docs/hardening.md). Under
 * `app.request()` (no socket), and for HEAD, the answer is an ordinary Response of the joined parts.
 */
export function partsResponse(
  c: Context<AppEnv>,
  headers: Record<string, string>,
  parts: readonly Uint8Array[],
  length: number,
): Response {
  const withLength = { ...headers, 'content-length': String(length) };
  const outgoing = c.env?.outgoing;
  // Not for HEAD: Hono answers it by wrapping the GET's Response in a new one, which the adapter would
  // write a second time (ERR_HTTP_HEADERS_SENT).
  if (outgoing === undefined || c.req.method !== 'GET')
    return new Response(Buffer.concat(parts, length), { status: 200, headers: withLength });
  outgoing.writeHead(200, withLength);
  for (const part of parts) if (part.length > 0) outgoing.write(part);
  outgoing.end();
  return RESPONSE_ALREADY_SENT;
}
