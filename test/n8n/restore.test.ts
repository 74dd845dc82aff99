/**
 * The API half of `make restore` against a stand-in of n8n's public API over real HTTP: before the import,
 * the save's workflows that are published are unpublished (and no other); after it, those the save records
 * as published are published again, except one whose webhook path another published workflow holds,
 * which stays unpublished and is named in one line.
 */
import { describe, expect, it } from 'vitest';
import { PublicApi } from '../../app/n8n/client.js';
import { republishIds, unpublishIds } from '../../app/n8n/restore.js';
import { send, standIn } from './stand-in.js';

interface Stored {
  id: string;
  name: string;
  active: boolean;
  path: string;
}

const webhook = (path: string) => ({
  name: 'Webhook',
  type: 'n8n-nodes-base.webhook',
  parameters: { path, httpMethod: 'POST' },
});

/** n8n's list, publish and unpublish over a few workflows; `refuse` answers a publish with that status. */
async function n8nWith(workflows: Stored[], refuse: Record<string, number> = {}) {
  const show = (w: Stored) => ({
    id: w.id,
    name: w.name,
    active: w.active,
    nodes: [webhook(w.path)],
    connections: {},
  });
  const n8n = await standIn((call, res) => {
    const url = new URL(call.url, 'http://n8n');
    const action = url.pathname.match(/^\/api\/v1\/workflows\/([^/]+)\/(publish|unpublish)$/);
    if (call.method === 'GET' && url.pathname === '/api/v1/workflows') {
      const active = url.searchParams.get('active');
      const data = workflows.filter((w) => active === null || String(w.active) === active).map(show);
      return send(res, 200, { data, nextCursor: null });
    }
    const found = action && workflows.find((w) => w.id === action[1]);
    if (!action || !found) return send(res, 404, { message: 'not found' });
    const status = refuse[found.id];
    if (action[2] === 'publish' && status) return send(res, status, { message: `refused ${found.id}` });
    found.active = action[2] === 'publish';
    send(res, 200, show(found));
  });
  return { ...n8n, api: new PublicApi({ url: n8n.url }, 'key') };
}

const actions = (calls: { method: string; url: string }[]) =>
  calls.filter((c) => c.method === 'POST').map((c) => c.url.replace('/api/v1/workflows/', ''));

describe('make restore, through n8n’s API', () => {
  it('before the import: unpublishes the saved workflows that are published, and no other', async () => {
    const n8n = await n8nWith([
      { id: 'saved1', name: 'Mine', active: true, path: 'suspicious-login' },
      { id: 'saved2', name: 'Draft', active: false, path: 'draft' },
      { id: 'other', name: 'Not in the save', active: true, path: 'other' },
    ]);
    expect(await unpublishIds(n8n.api, ['saved1', 'saved2', 'gone'])).toBe(1);
    expect(actions(n8n.calls)).toEqual(['saved1/unpublish']);
  });

  it('after the import: publishes each again, one line each', async () => {
    const n8n = await n8nWith([
      { id: 'r1', name: 'My response', active: false, path: 'suspicious-login' },
      { id: 'r2', name: 'My rollback', active: false, path: 'suspicious-login-rollback' },
    ]);
    expect(await republishIds(n8n.api, ['r1', 'r2'])).toEqual([
      'published "My response" (id r1)',
      'published "My rollback" (id r2)',
    ]);
    expect(actions(n8n.calls)).toEqual(['r1/publish', 'r2/publish']);
  });

  it('leaves unpublished, in one line naming the holder, a workflow whose path another published one holds', async () => {
    const n8n = await n8nWith([
      { id: 'r1', name: 'My response', active: false, path: 'suspicious-login' },
      { id: 'ref', name: 'Suspicious Login Response', active: true, path: 'suspicious-login' },
      { id: 'r2', name: 'My rollback', active: false, path: 'suspicious-login-rollback' },
    ]);
    expect(await republishIds(n8n.api, ['r1', 'r2'])).toEqual([
      'restored unpublished: "My response" (id r1): POST /webhook/suspicious-login is held by the published workflow "Suspicious Login Response" (id ref)',
      'published "My rollback" (id r2)',
    ]);
    expect(actions(n8n.calls)).toEqual(['r2/publish']);
  });

  it('names a workflow n8n refuses to publish, goes on with the others, and throws on n8n’s own failure', async () => {
    const n8n = await n8nWith(
      [
        { id: 'a', name: 'Broken', active: false, path: 'a' },
        { id: 'b', name: 'Fine', active: false, path: 'b' },
      ],
      { a: 400 },
    );
    expect(await republishIds(n8n.api, ['a', 'b', 'missing'])).toEqual([
      'restored unpublished: "Broken" (id a): n8n refused to publish it (refused a)',
      'published "Fine" (id b)',
      'not found: workflow id missing is not in the lab after the import',
    ]);
    const failing = await n8nWith([{ id: 'a', name: 'Broken', active: false, path: 'a' }], { a: 500 });
    await expect(republishIds(failing.api, ['a'])).rejects.toThrow(/500/);
  });
});
