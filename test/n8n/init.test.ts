/**
 * The Kubernetes lab's set-up (app/n8n/init.ts) against a stand-in of n8n over real HTTP: it waits for
 * readiness, makes the owner and writes the key file (private), keeps a key n8n still accepts, publishes
 * the reference in demo mode only, says a refused publish and carries on, and gives up in one line when n8n
 * never gets ready.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { initLab } from '../../app/n8n/init.js';
import { type Call, send, standIn } from './stand-in.js';

const dir = mkdtempSync(join(tmpdir(), 'n8n-init-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const REF = join(dir, 'ref.json');
writeFileSync(
  REF,
  JSON.stringify({
    name: 'Reference',
    nodes: [
      { name: 'Webhook', type: 'n8n-nodes-base.webhook', parameters: { httpMethod: 'POST', path: 'p1' } },
    ],
    connections: {},
    settings: {},
  }),
);
const OWNER = { email: 'o@lab.test', password: 'Secret-1x', firstName: 'Lab', lastName: 'Trainee' };

/** n8n that is not ready for `notReady` readiness probes; a published workflow of its own when `holder`. */
function n8n(opts: { notReady?: number; holder?: boolean; goodKey?: string } = {}) {
  let probes = 0;
  return standIn((c: Call, res) => {
    if (c.url === '/healthz/readiness') return send(res, ++probes > (opts.notReady ?? 0) ? 200 : 503, {});
    if (c.url === '/rest/owner/setup') return send(res, 200, { data: {} });
    if (c.url === '/rest/login') return send(res, 200, { data: {} }, { 'set-cookie': 'n8n-auth=t' });
    if (c.url === '/rest/api-keys') return send(res, 200, { data: { rawApiKey: 'new-key' } });
    const key = c.headers['x-n8n-api-key'];
    if (key !== 'new-key' && key !== opts.goodKey) return send(res, 401, { message: 'unauthorized' });
    if (c.method === 'GET' && c.url.startsWith('/api/v1/workflows?')) {
      const mine = {
        id: 'T1',
        name: 'Mine',
        active: true,
        nodes: [],
        connections: {},
        activeVersion: {
          nodes: [
            { name: 'W', type: 'n8n-nodes-base.webhook', parameters: { httpMethod: 'POST', path: 'p1' } },
          ],
        },
      };
      return send(res, 200, { data: opts.holder ? [mine] : [], nextCursor: null });
    }
    if (c.method === 'GET' && c.url.startsWith('/api/v1/'))
      return send(res, 200, { data: [], nextCursor: null });
    if (c.method === 'POST' && c.url === '/api/v1/workflows')
      return send(res, 200, {
        id: 'R1',
        name: 'Reference',
        active: false,
        versionId: 'v',
        nodes: [],
        connections: {},
      });
    if (c.method === 'POST' && c.url.endsWith('/publish'))
      return send(res, 200, {
        id: 'R1',
        name: 'Reference',
        active: true,
        versionId: 'v',
        nodes: [],
        connections: {},
      });
    send(res, 404, {});
  });
}

async function init(url: string, keyFile: string, demo = false, waitMs = 5000) {
  const lines: string[] = [];
  await initLab({
    n8n: { url },
    owner: OWNER,
    keyFile,
    demo,
    workflows: [REF],
    waitMs,
    pollMs: 20,
    say: (l) => lines.push(l),
  });
  return lines;
}

describe('initLab', () => {
  it('waits until n8n is ready, makes the owner and writes the key to a private file', async () => {
    const stand = await n8n({ notReady: 3 });
    const keyFile = join(dir, 'a.key');
    expect(await init(stand.url, keyFile)).toEqual(['owner created', `api key written to ${keyFile}`]);
    expect(readFileSync(keyFile, 'utf8')).toBe('new-key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(stand.calls.filter((c) => c.url === '/healthz/readiness')).toHaveLength(4);
    expect(stand.calls.some((c) => c.url.startsWith('/api/v1/workflows'))).toBe(false);
  });

  it('keeps a key n8n still accepts', async () => {
    const stand = await n8n({ goodKey: 'held-key' });
    const keyFile = join(dir, 'b.key');
    writeFileSync(keyFile, 'held-key\n');
    expect(await init(stand.url, keyFile)).toEqual(['owner created', `api key kept in ${keyFile}`]);
    expect(stand.calls.some((c) => c.url === '/rest/api-keys')).toBe(false);
  });

  it('publishes the reference in demo mode', async () => {
    const stand = await n8n();
    const lines = await init(stand.url, join(dir, 'c.key'), true);
    expect(lines.at(-1)).toBe('published "Reference" (id R1, created) on POST /webhook/p1');
    expect(stand.calls.at(-1)?.url).toBe('/api/v1/workflows/R1/publish');
  });

  it("says a refused publish in demo mode and carries on (a trainee's workflow holds the path)", async () => {
    const stand = await n8n({ holder: true });
    const lines = await init(stand.url, join(dir, 'd.key'), true);
    expect(lines.at(-1)).toMatch(
      /^the reference workflows were not published: the published workflow "Mine" \(id T1\)/,
    );
    expect(stand.calls.some((c) => c.url.endsWith('/publish'))).toBe(false);
  });

  it('gives up in one line when n8n is never ready', async () => {
    const stand = await n8n({ notReady: 1e9 });
    await expect(init(stand.url, join(dir, 'e.key'), false, 200)).rejects.toThrow(
      /^n8n at http:\/\/127\.0\.0\.1:\d+ was not ready within 0 s$/,
    );
  });
});
