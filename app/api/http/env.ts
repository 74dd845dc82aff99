/** The bindings @hono/node-server hands the mock API as `c.env` (the socket), all optional. */
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Bindings @hono/node-server passes as `c.env`. Absent under `app.request()` in tests, so every use is
 * optional: the service behaves the same, it only loses what a socket can tell (the peer address)
 * and the direct write of large answers (http/parts-body.ts).
 */
export interface AppEnv {
  Bindings: { incoming?: IncomingMessage; outgoing?: ServerResponse };
}
