/** GET /api/state: the mock API's state as the console page shows it. */
import { Hono } from 'hono';
import type { ConsoleDeps } from './deps.js';

/** GET /api/state: the mock API's state as the page shows it. */
export function stateRoutes({ feed }: Pick<ConsoleDeps, 'feed'>): Hono {
  return new Hono().get('/', async (c) => {
    // Nobody listening: the feed is not polling, so this read polls first.
    if (!feed.polling) await feed.refresh();
    return c.json(feed.view);
  });
}
