/** GET /api/session: the token the page's POSTs carry. */
import { Hono } from 'hono';
import type { ConsoleDeps } from './deps.js';

/** GET /api/session: the token the page's POSTs carry (the guard already let this browser in). */
export function sessionRoutes({ token }: Pick<ConsoleDeps, 'token'>): Hono {
  return new Hono().get('/', (c) => c.json({ token }));
}
