import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { postTrigger, rewriteOrigin } from '../../app/driver/moves.js';

describe('rewriteOrigin', () => {
  it('keeps the path and the signature, replaces scheme, host and port', () => {
    const url = 'http://n8n-main:5678/webhook-waiting/123?signature=abc';
    expect(rewriteOrigin(url, 'http://127.0.0.1:15678')).toBe(
      'http://127.0.0.1:15678/webhook-waiting/123?signature=abc',
    );
    expect(rewriteOrigin(url, undefined)).toBe(url);
  });
});

describe('postTrigger on a path that answers 404', () => {
  /** A server on loopback that answers every POST 404, as n8n does on a path nothing listens on. */
  async function notFoundServer(): Promise<{ url: string; posts: () => number; close: () => Promise<void> }> {
    let posts = 0;
    const server = createServer((request, response) => {
      posts += 1;
      request.resume();
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"code":404}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}/webhook/suspicious-login`,
      posts: () => posts,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  }
  const timing = { pollMs: 50, settleMs: 0, phaseTimeoutMs: 1_500, approvalLatenessMs: 0 };

  it('stops at once when no published workflow holds the path', async () => {
    const server = await notFoundServer();
    try {
      const began = performance.now();
      const status = await postTrigger(
        server.url,
        {},
        timing,
        () => {},
        {},
        async () => false,
      );
      expect(status).toBe(404);
      expect(server.posts()).toBe(1);
      expect(performance.now() - began).toBeLessThan(1_000);
    } finally {
      await server.close();
    }
  });

  it('retries to the phase time while one holds it (just published), or when the target cannot tell', async () => {
    for (const listens of [async () => true, async () => null, undefined]) {
      const server = await notFoundServer();
      try {
        const began = performance.now();
        expect(await postTrigger(server.url, {}, timing, () => {}, {}, listens)).toBe(404);
        expect(server.posts()).toBeGreaterThan(2);
        expect(performance.now() - began).toBeGreaterThanOrEqual(timing.phaseTimeoutMs);
      } finally {
        await server.close();
      }
    }
  }, 20_000);
});
