/**
 * The lead's mock API served in-process on a random loopback port, for `--target reference` without
 * --api and for the tests: the reference workflow still reaches it over real HTTP, through the same
 * startServer as production (its timeouts, parser-error answers and graceful close).
 */
import { createApp, defaultDeps } from '../api/app.js';
import { loadConfig } from '../api/config.js';
import { startServer } from '../api/server.js';
import { type MockApiAddress, type MockApiClient, mockApiClient } from './client.js';

/** How the mock API is reached; `local`: the tool serves one itself (reference target only). */
export type ApiOption = MockApiAddress | { kind: 'local' };

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

/**
 * The way to the mock API that the options name: its own in-process one (started here, closed by the
 * caller), one at a URL, or one reached through a command. mockApiUrl is set when it is reached over HTTP.
 */
export async function openMockApi(
  spec: ApiOption,
): Promise<{ api: MockApiClient; mockApiUrl?: string; localApi?: LocalMockApi }> {
  if (spec.kind === 'local') {
    const localApi = await startLocalMockApi();
    return { api: mockApiClient({ kind: 'http', url: localApi.url }), mockApiUrl: localApi.url, localApi };
  }
  return { api: mockApiClient(spec), ...(spec.kind === 'http' ? { mockApiUrl: spec.url } : {}) };
}
