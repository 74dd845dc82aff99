import type { IncomingMessage } from 'node:http';

/**
 * Bindings @hono/node-server passes as `c.env`. Absent under `app.request()` in tests, so every use is
 * optional: the service behaves the same, it only loses what a socket can tell (the peer address).
 */
export interface AppEnv {
  Bindings: { incoming?: IncomingMessage };
}
