/**
 * The n8n client against a stand-in of n8n 2.41.1 over real HTTP on loopback: the requests it makes (paths,
 * bodies, the key and the login cookie) and what it does with n8n's answers, as probed on the pinned n8n.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EditorSession, N8nError, setupOwner } from '../../app/n8n/client.js';
import { LAB_KEY_SCOPES, setupLab } from '../../app/n8n/setup.js';
import { importSolution, readReferences, SolutionRefused } from '../../app/n8n/solution.js';
import { postWebhookListening } from '../../app/n8n/webhooks.js';
import { send, standIn } from './stand-in.js';

const OWNER = { email: 'o@lab.test', password: 'Secret-1x', firstName: 'Lab', lastName: 'Trainer' };

describe('owner set-up, login and API key (the editor REST API)', () => {
  it('creates the owner, or says it exists on n8n 400 "Instance owner already setup"', async () => {
    let made = false;
    const n8n = await standIn((_c, res) => {
      if (made) return send(res, 400, { code: 400, message: 'Instance owner already setup' });
      made = true;
      send(res, 200, { data: {} });
    });
    expect(await setupOwner({ url: n8n.url }, OWNER)).toBe('created');
    expect(await setupOwner({ url: n8n.url }, OWNER)).toBe('exists');
    expect(n8n.calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      'POST /rest/owner/setup',
      'POST /rest/owner/setup',
    ]);
    expect(n8n.calls[0]?.body).toEqual(OWNER);
  });

  it('fails on any other refusal of the owner set-up', async () => {
    const n8n = await standIn((_c, res) => send(res, 400, { message: 'password too short' }));
    await expect(setupOwner({ url: n8n.url }, OWNER)).rejects.toThrow(
      /answered 400 to POST \/rest\/owner\/setup: password too short/,
    );
  });

  it('logs in with emailOrLdapLoginId and sends the n8n-auth cookie with the key request', async () => {
    const n8n = await standIn((c, res) => {
      if (c.url === '/rest/login')
        return send(
          res,
          200,
          { data: {} },
          { 'set-cookie': ['n8n-auth=tok123; Path=/; HttpOnly', 'other=1'] },
        );
      if (c.url === '/rest/api-keys' && c.headers.cookie === 'n8n-auth=tok123')
        return send(res, 200, { data: { rawApiKey: 'raw-key' } });
      send(res, 401, { message: 'Unauthorized' });
    });
    const session = await EditorSession.login({ url: n8n.url }, 'o@lab.test', 'pw');
    expect(await session.createApiKey('lab', ['workflow:read'])).toBe('raw-key');
    expect(n8n.calls[0]?.body).toEqual({ emailOrLdapLoginId: 'o@lab.test', password: 'pw' });
    expect(n8n.calls[1]?.body).toEqual({ label: 'lab', scopes: ['workflow:read'], expiresAt: null });
  });

  it('keeps a key n8n accepts, and makes one with the lab scopes when it refuses it', async () => {
    const n8n = await standIn((c, res) => {
      if (c.url.startsWith('/api/v1/')) {
        return c.headers['x-n8n-api-key'] === 'good'
          ? send(res, 200, { data: [], nextCursor: null })
          : send(res, 401, { message: 'unauthorized' });
      }
      if (c.url === '/rest/owner/setup') return send(res, 400, { message: 'Instance owner already setup' });
      if (c.url === '/rest/login') return send(res, 200, { data: {} }, { 'set-cookie': 'n8n-auth=t' });
      if (c.url === '/rest/api-keys') return send(res, 200, { data: { rawApiKey: 'new-key' } });
      send(res, 404, {});
    });
    expect(await setupLab({ url: n8n.url }, OWNER, 'good')).toEqual({ owner: 'exists', key: { kept: true } });
    expect(n8n.calls.some((c) => c.url === '/rest/login')).toBe(false);
    expect(await setupLab({ url: n8n.url }, OWNER, 'stale')).toEqual({
      owner: 'exists',
      key: { kept: false, raw: 'new-key' },
    });
    const made = n8n.calls.find((c) => c.url === '/rest/api-keys');
    expect(made?.body).toMatchObject({ scopes: [...LAB_KEY_SCOPES], expiresAt: null });
  });
});

describe('solution (the public API)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'n8n-solution-'));
  const file = join(dir, 'ref.json');
  writeFileSync(
    file,
    JSON.stringify({
      id: 'Ref1',
      name: 'Reference',
      active: false,
      nodes: [
        { name: 'Webhook', type: 'n8n-nodes-base.webhook', parameters: { httpMethod: 'POST', path: 'p1' } },
      ],
      connections: {},
      settings: { executionOrder: 'v1' },
      tags: [],
    }),
  );
  const noNodes: unknown[] = [];
  const wf = (id: string, name: string, active: boolean, path = 'p1') => ({
    id,
    name,
    active,
    versionId: 'v1',
    nodes: noNodes,
    connections: {},
    activeVersion: active
      ? {
          nodes: [
            { name: 'Webhook', type: 'n8n-nodes-base.webhook', parameters: { httpMethod: 'POST', path } },
          ],
        }
      : null,
  });

  function n8nWith(existing: ReturnType<typeof wf>[]) {
    return standIn((c, res) => {
      if (c.headers['x-n8n-api-key'] !== 'k') return send(res, 401, { message: 'unauthorized' });
      if (c.method === 'GET' && c.url.startsWith('/api/v1/workflows?'))
        return send(res, 200, { data: existing, nextCursor: null });
      if (c.method === 'POST' && c.url === '/api/v1/workflows')
        return send(res, 200, wf('New1', 'Reference', false));
      if (c.method === 'PUT') return send(res, 200, { ...wf('Old1', 'Reference', true), versionId: 'v1' });
      if (c.method === 'POST' && c.url.endsWith('/publish'))
        return send(res, 200, wf(c.url.split('/')[4] ?? '', 'Reference', true));
      send(res, 404, {});
    });
  }

  it('creates with the writable fields only, then publishes', async () => {
    const n8n = await n8nWith([]);
    const lines = await importSolution({ url: n8n.url }, 'k', readReferences([file]));
    expect(lines).toEqual(['published "Reference" (id New1, created) on POST /webhook/p1']);
    const create = n8n.calls.find((c) => c.method === 'POST' && c.url === '/api/v1/workflows');
    expect(Object.keys(create?.body ?? {}).sort()).toEqual(['connections', 'name', 'nodes', 'settings']);
    expect(n8n.calls.at(-1)?.url).toBe('/api/v1/workflows/New1/publish');
  });

  it('updates the workflow of the same name (its own path is no conflict), unchanged when n8n keeps its version', async () => {
    const n8n = await n8nWith([wf('Old1', 'Reference', true)]);
    expect(await importSolution({ url: n8n.url }, 'k', readReferences([file]))).toEqual([
      'published "Reference" (id Old1, unchanged) on POST /webhook/p1',
    ]);
    expect(n8n.calls.map((c) => `${c.method} ${c.url.split('?')[0]}`)).toEqual([
      'GET /api/v1/workflows',
      'PUT /api/v1/workflows/Old1',
      'POST /api/v1/workflows/Old1/publish',
    ]);
  });

  it('refuses in one line, changing nothing, when another published workflow holds the path', async () => {
    const n8n = await n8nWith([wf('T1', 'My Response', true), wf('T2', 'Draft', false)]);
    const refused = importSolution({ url: n8n.url }, 'k', readReferences([file]));
    await expect(refused).rejects.toThrow(SolutionRefused);
    await expect(refused).rejects.toThrow(
      /^the published workflow "My Response" \(id T1\) listens on POST \/webhook\/p1, which "Reference" needs: unpublish it in the n8n editor/,
    );
    expect(n8n.calls.every((c) => c.method === 'GET')).toBe(true);
  });

  it('ignores a published workflow on another path, and one whose draft only has the path', async () => {
    const draftOnly = {
      ...wf('T3', 'Mine', true, 'other'),
      nodes: [
        { name: 'Webhook', type: 'n8n-nodes-base.webhook', parameters: { httpMethod: 'POST', path: 'p1' } },
      ],
    };
    const n8n = await n8nWith([draftOnly]);
    expect(await importSolution({ url: n8n.url }, 'k', readReferences([file]))).toHaveLength(1);
  });

  it("fails with n8n's status when the key is refused", async () => {
    const n8n = await n8nWith([]);
    await expect(importSolution({ url: n8n.url }, 'bad', readReferences([file]))).rejects.toThrow(N8nError);
  });

  it('refuses a file that is no workflow export', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"name":"x"}');
    expect(() => readReferences([bad])).toThrow(/not an n8n workflow export/);
  });
});

describe('webhook-listening', () => {
  it('tells a path registered for POST from an unknown one by the GET answer (no run started)', async () => {
    const n8n = await standIn((c, res) =>
      c.url === '/webhook/held'
        ? send(res, 404, {
            message: 'This webhook is not registered for GET requests. Did you mean to make a POST request?',
          })
        : send(res, 404, { message: `The requested webhook "GET ${c.url.slice(9)}" is not registered.` }),
    );
    expect(await postWebhookListening(n8n.url, 'held')).toBe(true);
    expect(await postWebhookListening(n8n.url, 'free')).toBe(false);
    expect(n8n.calls.map((c) => c.method)).toEqual(['GET', 'GET']);
  });
});
