/**
 * The lead's mock API served in-process on a random loopback port, for `--target reference` without
 * --api and for the tests: the reference workflow still reaches it over real HTTP.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createApp, defaultDeps } from '../app.js';

export interface LocalMockApi {
  url: string;
  close(): Promise<void>;
}

export async function startLocalMockApi(): Promise<LocalMockApi> {
  const app = createApp(defaultDeps());
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const started = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(started));
    started.once('error', reject);
  });
  const address: AddressInfo | string | null = server.address();
  if (address === null || typeof address === 'string') throw new Error('mock API: no TCP address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Idle keep-alive sockets of the workflow's fetch would otherwise hold close() open.
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  };
}
