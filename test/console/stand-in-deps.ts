/**
 * The console's deps for a test that builds its app in process with nothing behind it: a mock API and an
 * n8n that are not there (port 9 on loopback, refused at once, so a test that reached them by mistake
 * fails fast) and a feed that does not poll within a test. A test gives what it needs over them.
 */
import type { ConsoleDeps } from '../../app/console/app.js';
import { StateFeed } from '../../app/console/feed.js';
import { mockApiClient } from '../../app/mock-api-client/client.js';

/** The Host the tests send, and the token the app's controls want. */
export const HOST = '127.0.0.1:8088';
export const TOKEN = 'test-token';
const NOWHERE = 'http://127.0.0.1:9';

/** The deps, `over` given over them; the feed reads the given `api`, if any. */
export function standInDeps(over: Partial<ConsoleDeps> = {}): ConsoleDeps {
  const api = over.api ?? mockApiClient({ kind: 'http', url: NOWHERE }, { timeoutMs: 200 });
  return {
    feed: new StateFeed({ api, pollMs: 60_000, checkReport: null }),
    api,
    n8nUrl: NOWHERE,
    n8nPublicUrl: NOWHERE,
    allowedHosts: [],
    token: TOKEN,
    ...over,
  };
}
