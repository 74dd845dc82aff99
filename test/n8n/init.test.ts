/**
 * The Kubernetes lab's set-up (app/n8n/init.ts, app/n8n/k8s-init.ts) against a stand-in of n8n and one of
 * the API server, over real HTTP: it waits for readiness, makes the owner and one key, keeps it (in the
 * lab's Secret, or a private file) and reuses it on every later start without a login, so a trainee's
 * changed password blocks nothing; it makes a key only where the next start will find it; it publishes the
 * reference in demo mode only, says a refused publish and carries on, and gives up in one line when n8n
 * never gets ready.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileKeyStore, initLab, type KeyStore } from '../../app/n8n/init.js';
import { k8sInit, secretKeyStore, storeFromEnv } from '../../app/n8n/k8s-init.js';
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

/**
 * n8n that is not ready for `notReady` readiness probes; whose owner's password is `password` (the
 * trainee may have changed it); that accepts the keys it made and `goodKey`; with a published workflow of
 * a trainee's own when `holder`.
 */
function n8n(opts: { notReady?: number; holder?: boolean; goodKey?: string; password?: string } = {}) {
  let probes = 0;
  let made = 0;
  const keys = new Set(opts.goodKey ? [opts.goodKey] : []);
  return standIn((c: Call, res) => {
    if (c.url === '/healthz/readiness') return send(res, ++probes > (opts.notReady ?? 0) ? 200 : 503, {});
    if (c.url === '/rest/owner/setup') return send(res, 200, { data: {} });
    if (c.url === '/rest/login')
      return (c.body as { password?: string }).password === (opts.password ?? OWNER.password)
        ? send(res, 200, { data: {} }, { 'set-cookie': 'n8n-auth=t' })
        : send(res, 401, { message: 'Wrong username or password. Do not have an account?' });
    if (c.url === '/rest/api-keys') {
      const raw = `made-key-${++made}`;
      keys.add(raw);
      return send(res, 200, { data: { rawApiKey: raw } });
    }
    if (!keys.has(String(c.headers['x-n8n-api-key']))) return send(res, 401, { message: 'unauthorized' });
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
    const workflow = { id: 'R1', name: 'Reference', versionId: 'v', nodes: [], connections: {} };
    if (c.method === 'POST' && c.url === '/api/v1/workflows')
      return send(res, 200, { ...workflow, active: false });
    if (c.method === 'POST' && c.url.endsWith('/publish'))
      return send(res, 200, { ...workflow, active: true });
    send(res, 404, {});
  });
}
const minted = (calls: Call[]) => calls.filter((c) => c.url === '/rest/api-keys').length;
const logins = (calls: Call[]) => calls.filter((c) => c.url === '/rest/login').length;

async function init(url: string, store: KeyStore, demo = false, waitMs = 5000) {
  const lines: string[] = [];
  const key = await initLab({
    n8n: { url },
    owner: OWNER,
    store,
    demo,
    workflows: [REF],
    waitMs,
    pollMs: 20,
    say: (l) => lines.push(l),
  });
  return { lines, key };
}

/** A store in memory; `broken` makes it unreadable (a Secret the pod may not read). */
function memoryStore(initial = '', broken = false): KeyStore & { value: string } {
  const store = {
    where: 'the memory store',
    value: initial,
    read: async () => {
      if (broken) throw new Error('forbidden');
      return store.value;
    },
    write: async (key: string) => {
      store.value = key;
    },
  };
  return store;
}

describe('initLab', () => {
  it('waits until n8n is ready, makes the owner and one key, and keeps it (a file: private)', async () => {
    const stand = await n8n({ notReady: 3 });
    const keyFile = join(dir, 'a.key');
    const run = await init(stand.url, fileKeyStore(keyFile));
    expect(run.lines).toEqual(['owner created', `api key made and kept in ${keyFile}`]);
    expect(readFileSync(keyFile, 'utf8')).toBe('made-key-1');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(stand.calls.filter((c) => c.url === '/healthz/readiness')).toHaveLength(4);
    expect(stand.calls.some((c) => c.url.startsWith('/api/v1/workflows'))).toBe(false);
  });

  it('reuses the kept key at every later start: no login, no new key', async () => {
    const stand = await n8n();
    const store = memoryStore();
    await init(stand.url, store);
    for (let start = 0; start < 3; start++)
      expect((await init(stand.url, store)).lines).toEqual([
        'owner created',
        'api key kept in the memory store',
      ]);
    expect(minted(stand.calls)).toBe(1);
    expect(logins(stand.calls)).toBe(1);
    expect(store.value).toBe('made-key-1');
  });

  it('control: without the store, every start makes a key of its own', async () => {
    const stand = await n8n();
    for (let start = 0; start < 3; start++) await init(stand.url, memoryStore());
    expect(minted(stand.calls)).toBe(3);
  });

  it("a trainee's changed password changes nothing while the kept key works", async () => {
    const stand = await n8n({ goodKey: 'held-key', password: 'Changed-by-trainee-1' });
    const run = await init(stand.url, memoryStore('held-key'));
    expect(run.key).toBe('held-key');
    expect(run.lines.at(-1)).toBe('api key kept in the memory store');
    expect(logins(stand.calls)).toBe(0);
  });

  it('with no usable key and a changed password, it says so and ends normally: the lab starts', async () => {
    const stand = await n8n({ password: 'Changed-by-trainee-1' });
    const run = await init(stand.url, memoryStore('revoked-key'), true);
    expect(run.key).toBeUndefined();
    expect(run.lines).toEqual([
      'owner created',
      "no key for n8n's API: n8n refuses the kept key and n8n refuses the lab's first password (changed since?); the lab starts without one (Reset does not stop unfinished runs)",
      "the reference workflows were not published: no key for n8n's API",
    ]);
    expect(minted(stand.calls)).toBe(0);
  });

  it('makes a new key when n8n refuses the kept one, and keeps it in its place', async () => {
    const stand = await n8n();
    const store = memoryStore('revoked-key');
    expect((await init(stand.url, store)).lines.at(-1)).toBe('api key made and kept in the memory store');
    expect(store.value).toBe('made-key-1');
  });

  it('makes no key when the store cannot be read (the next start could not find it)', async () => {
    const stand = await n8n();
    const run = await init(stand.url, memoryStore('', true));
    expect(run.key).toBeUndefined();
    expect(run.lines.at(-1)).toMatch(/^no key for n8n's API: the memory store cannot be read \(forbidden\)/);
    expect(minted(stand.calls)).toBe(0);
  });

  it('publishes the reference in demo mode', async () => {
    const stand = await n8n();
    const { lines } = await init(stand.url, memoryStore(), true);
    expect(lines.at(-1)).toBe('published "Reference" (id R1, created) on POST /webhook/p1');
    expect(stand.calls.at(-1)?.url).toBe('/api/v1/workflows/R1/publish');
  });

  it("says a refused publish in demo mode and carries on (a trainee's workflow holds the path)", async () => {
    const stand = await n8n({ holder: true });
    const { lines } = await init(stand.url, memoryStore(), true);
    expect(lines.at(-1)).toMatch(
      /^the reference workflows were not published: the published workflow "Mine" \(id T1\)/,
    );
    expect(stand.calls.some((c) => c.url.endsWith('/publish'))).toBe(false);
  });

  it('gives up in one line when n8n is never ready', async () => {
    const stand = await n8n({ notReady: 1e9 });
    await expect(init(stand.url, memoryStore(), false, 200)).rejects.toThrow(
      /^n8n at http:\/\/127\.0\.0\.1:\d+ was not ready within 0 s$/,
    );
  });
});

/** The API server, holding one Secret `lab-api-key` in `lab-ns` (no data until patched). */
async function apiServer(opts: { token?: string; missing?: boolean } = {}) {
  let data: Record<string, string> | undefined;
  const path = '/api/v1/namespaces/lab-ns/secrets/lab-api-key';
  const stand = await standIn((c, res) => {
    if (c.headers.authorization !== `Bearer ${opts.token ?? 'pod-token'}`) return send(res, 401, {});
    if (c.url !== path || opts.missing) return send(res, 404, { kind: 'Status', reason: 'NotFound' });
    if (c.method === 'GET')
      return send(res, 200, { kind: 'Secret', metadata: { name: 'lab-api-key' }, data });
    if (c.method === 'PATCH' && c.headers['content-type'] === 'application/merge-patch+json') {
      data = { ...data, ...(c.body as { data: Record<string, string> }).data };
      return send(res, 200, { kind: 'Secret', data });
    }
    send(res, 405, {});
  });
  return { ...stand, data: () => data };
}
const secretStore = (url: string, token = 'pod-token') =>
  secretKeyStore({ apiUrl: url, namespace: 'lab-ns', name: 'lab-api-key', token: () => token });

describe('the key in the lab Secret', () => {
  it('is made once and kept in the Secret (base64, as the API keeps data); later starts reuse it', async () => {
    const [n8nStand, api] = [await n8n(), await apiServer()];
    const store = secretStore(api.url);
    expect((await init(n8nStand.url, store)).lines.at(-1)).toBe(
      'api key made and kept in the Secret lab-ns/lab-api-key',
    );
    expect(api.data()).toEqual({ N8N_API_KEY: Buffer.from('made-key-1').toString('base64') });
    expect((await init(n8nStand.url, store)).lines.at(-1)).toBe(
      'api key kept in the Secret lab-ns/lab-api-key',
    );
    expect(minted(n8nStand.calls)).toBe(1);
  });

  it('makes no key when the pod may not read the Secret, or it is missing', async () => {
    const n8nStand = await n8n();
    for (const api of [await apiServer({ token: 'other' }), await apiServer({ missing: true })]) {
      const run = await init(n8nStand.url, secretStore(api.url));
      expect(run.lines.at(-1)).toMatch(/cannot be read \(the API server answered (401|404) to GET\)/);
    }
    expect(minted(n8nStand.calls)).toBe(0);
  });
});

describe('k8s-init: its environment', () => {
  const base = { N8N_URL: 'http://n8n:5678', N8N_OWNER_EMAIL: 'a@b.c', N8N_OWNER_PASSWORD: 'x' };
  it('names the Secret on the cluster, the file elsewhere', () => {
    const k8s = { ...base, LAB_KEY_SECRET: 'lab-api-key', POD_NAMESPACE: 'soar-lab-alice' };
    const store = storeFromEnv({
      ...k8s,
      LAB_MODE: 'exercise',
      KUBERNETES_SERVICE_HOST: '10.96.0.1',
      KUBERNETES_SERVICE_PORT: '443',
    });
    expect(store.where).toBe('the Secret soar-lab-alice/lab-api-key');
    expect(storeFromEnv({ ...base, LAB_MODE: 'exercise', N8N_API_KEY_FILE: '/k' }).where).toBe('/k');
  });

  it.each([
    ['no owner password', { N8N_OWNER_PASSWORD: '' }, /^N8N_OWNER_PASSWORD is not set$/],
    ['a lab mode that is none', { LAB_MODE: 'test' }, /^LAB_MODE is not exercise or demo$/],
    ['no place for the key', {}, /^LAB_KEY_SECRET or N8N_API_KEY_FILE is needed$/],
    [
      'a Secret without the API server',
      { LAB_KEY_SECRET: 's', POD_NAMESPACE: 'n' },
      /needs POD_NAMESPACE, KUBERNETES_SERVICE_HOST/,
    ],
  ])('refuses %s in one line', async (_, change, reason) => {
    await expect(k8sInit([], { ...base, ...change }, () => {})).rejects.toThrow(reason);
  });
});
