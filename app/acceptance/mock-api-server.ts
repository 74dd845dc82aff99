/**
 * The lead's mock API served in-process on a random loopback port, for `--target reference` without
 * --api and for the tests: the reference workflow still reaches it over real HTTP, through the same
 * startServer as production (its timeouts, parser-error answers and graceful close).
 */
import { createApp, defaultDeps } from '../app.js';
import { loadConfig } from '../config.js';
import { startServer } from '../server.js';

export interface LocalMockApi {
  url: string;
  close(): Promise<void>;
}

export async function startLocalMockApi(): Promise<LocalMockApi> {
  const app = createApp(defaultDeps());
  const running = await startServer(app, loadConfig([], { HOST: '127.0.0.1', PORT: '0' }));
  // Idle keep-alive sockets of the workflow's fetch are closed at once; nothing is in flight by then.
  return { url: running.url, close: () => running.close(200) };
}
