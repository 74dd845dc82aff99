import type { Store } from '../store/store.js';

/** What route modules need from the app: the state, and real time for uptime. */
export interface RouteDeps {
  store: Store;
  realNow: () => number;
  startedAt: number;
  version: string;
}
