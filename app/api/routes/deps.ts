/** What the mock API's route modules are given: the state, real time, the start time and the version. */
import type { Store } from '../store/store.js';

/** What route modules need from the app: the state, and real time for uptime. */
export interface RouteDeps {
  store: Store;
  realNow: () => number;
  startedAt: number;
  version: string;
}
