/**
 * n8n 2.41.1's public workflow API as the stand-in (test/n8n/stand-in.ts) answers it over real HTTP: list
 * (one page), get, create (unpublished), update (a published workflow stays published, n8n's
 * publishIfActive), publish and unpublish, behind the API key; with `executions`, also the unfinished runs
 * (list, stop); every call is recorded. For the starter's and the swap's tests here and in test/console.
 */
import { send, standIn } from './stand-in.js';

export interface StoredWorkflow {
  id: string;
  name: string;
  active: boolean;
  versionId: string;
  isArchived: boolean;
  nodes: unknown[];
  connections: Record<string, unknown>;
  settings: Record<string, unknown>;
}

export const STORE_KEY = 'lab-api-key';

/** Unfinished runs the store holds for n8n's executions API: a stop stops them unless `stuck`. */
export interface StoredRuns {
  runs: number;
  stuck?: boolean;
}

export async function workflowStore(
  seed: Omit<StoredWorkflow, 'versionId' | 'isArchived'>[] = [],
  executions?: StoredRuns,
) {
  const workflows = new Map<string, StoredWorkflow>();
  let left = executions?.runs ?? 0;
  let made = 0;
  const version = () => `v${++made}`;
  for (const w of seed) workflows.set(w.id, { ...w, versionId: version(), isArchived: false });
  const n8n = await standIn((call, res) => {
    if (call.headers['x-n8n-api-key'] !== STORE_KEY) return send(res, 401, { message: 'unauthorized' });
    const url = new URL(call.url, 'http://n8n');
    const [, api, v1, kind, id, action] = url.pathname.split('/');
    if (executions && api === 'api' && v1 === 'v1' && kind === 'executions') {
      if (call.method === 'POST' && id === 'stop') {
        const stopped = executions.stuck ? 0 : left;
        left -= stopped;
        return send(res, 200, { stopped });
      }
      if (call.method === 'GET')
        return send(res, 200, { data: left > 0 ? [{ id: '7' }] : [], nextCursor: null });
    }
    if (api !== 'api' || v1 !== 'v1' || kind !== 'workflows') return send(res, 404, { message: 'not found' });
    const body = (call.body ?? {}) as Partial<StoredWorkflow>;
    if (id === undefined && call.method === 'GET') {
      const active = url.searchParams.get('active');
      const data = [...workflows.values()].filter((w) => active === null || String(w.active) === active);
      return send(res, 200, { data, nextCursor: null });
    }
    if (id === undefined && call.method === 'POST') {
      const extra = Object.keys(body).filter(
        (k) => !['name', 'nodes', 'connections', 'settings'].includes(k),
      );
      if (extra.length > 0)
        return send(res, 400, { message: `request/body must NOT have ${extra.join(', ')}` });
      const w: StoredWorkflow = {
        id: `wf${made + 1}x${Math.random().toString(36).slice(2, 8)}`,
        name: String(body.name),
        active: false,
        versionId: version(),
        isArchived: false,
        nodes: body.nodes ?? [],
        connections: body.connections ?? {},
        settings: body.settings ?? {},
      };
      workflows.set(w.id, w);
      return send(res, 200, w);
    }
    const w = id === undefined ? undefined : workflows.get(id);
    if (w === undefined) return send(res, 404, { message: 'Not Found' });
    if (call.method === 'GET' && action === undefined) return send(res, 200, w);
    if (call.method === 'PUT' && action === undefined) {
      Object.assign(w, {
        name: body.name,
        nodes: body.nodes,
        connections: body.connections,
        settings: body.settings,
        versionId: version(),
      });
      return send(res, 200, w);
    }
    if (call.method === 'POST' && (action === 'publish' || action === 'unpublish')) {
      w.active = action === 'publish';
      return send(res, 200, w);
    }
    send(res, 405, { message: 'method not allowed' });
  });
  return { ...n8n, workflows };
}

/** The calls that changed something (every method but GET), as `METHOD path`. */
export const writes = (calls: { method: string; url: string }[]) =>
  calls.filter((c) => c.method !== 'GET').map((c) => `${c.method} ${c.url}`);
