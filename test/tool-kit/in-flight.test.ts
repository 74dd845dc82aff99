/**
 * The requests in flight (app/tool-kit/in-flight.ts), read from Node's diagnostics channels: fetch's and
 * node:http's, each listed while its answer is held back and gone once it came, over real HTTP on loopback.
 */
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { watchRequests } from '../../app/tool-kit/in-flight.js';

const held: ServerResponse[] = [];
const server = createServer((_req, res) => held.push(res));
const origin = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

afterEach(() => new Promise<void>((done) => server.close(() => done())));

describe('the requests in flight', () => {
  it('lists fetch and node:http requests until they are answered', async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const watch = watchRequests();
    try {
      const fetched = fetch(`${origin()}/rest/x`, { method: 'POST', body: '{}' });
      const got = new Promise((resolve) => {
        const req = request(`${origin()}/state`, (res) => res.resume().on('end', resolve));
        req.end();
      });
      await vi.waitFor(() => expect(held).toHaveLength(2));
      expect(watch.pending()).toEqual(
        expect.arrayContaining([`POST ${origin()}/rest/x (0 s)`, `GET ${origin()}/state (0 s)`]),
      );
      for (const res of held.splice(0)) res.end('{}');
      await (await fetched).text();
      await got;
      await vi.waitFor(() => expect(watch.pending()).toEqual([]));
    } finally {
      watch.stop();
    }
  });

  it('stops listening when stopped', async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const watch = watchRequests();
    watch.stop();
    const fetched = fetch(`${origin()}/late`);
    await vi.waitFor(() => expect(held).toHaveLength(1));
    expect(watch.pending()).toEqual([]);
    for (const res of held.splice(0)) res.end();
    await (await fetched).text();
  });
});
