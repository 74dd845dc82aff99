/**
 * The console's route table, as createConsoleApp mounts it from its routers (app/console/routes/): every
 * route the page and its tools use is there and answered by a handler, and no other is, with or without
 * n8n's key (the starter control's two routers answer the same path).
 */
import { describe, expect, it } from 'vitest';
import { createConsoleApp } from '../../app/console/app.js';
import { HOST, standInDeps, TOKEN } from './stand-in-deps.js';

const base = standInDeps();

const ROUTES = [
  'GET /',
  'GET /console.js',
  'GET /console.css',
  'GET /openapi.json',
  'GET /fields',
  'GET /api/session',
  'GET /api/state',
  'GET /api/events',
  'POST /api/reset',
  'POST /api/case-mode',
  'POST /api/clock',
  'POST /api/approve',
  'POST /api/alert',
  'GET /api/check',
  'POST /api/check',
  'GET /api/stages',
  'POST /api/starter',
  'GET /api/runs',
].sort();

/** The app's routes but its middleware (the guard, on every path), each once (a validator is a second entry). */
const routesOf = (app: ReturnType<typeof createConsoleApp>) =>
  [...new Set(app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path}`))].sort();

describe("the console's routes", () => {
  it.each([
    ['with n8n’s key', { n8nApiKey: 'a-key' }],
    ['without it', {}],
    ['with starters off', { n8nApiKey: 'a-key', starters: 'off' as const }],
  ])('are the eighteen the page uses, %s', (_, extra) => {
    expect(routesOf(createConsoleApp({ ...base, ...extra }))).toEqual(ROUTES);
  });

  it.each(ROUTES)('%s is answered by its handler, not the 404', async (route) => {
    const [method = '', path = ''] = route.split(' ');
    const aborted = new AbortController();
    const res = await createConsoleApp(base).request(path, {
      method,
      headers: { host: HOST, 'content-type': 'application/json', 'x-console-token': TOKEN },
      signal: aborted.signal,
      ...(method === 'POST' ? { body: '{}' } : {}),
    });
    aborted.abort();
    await res.body?.cancel();
    expect(res.status).not.toBe(404);
  });

  it('a path beside them is the 404', async () => {
    const res = await createConsoleApp(base).request('/api/checks', { headers: { host: HOST } });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: 'not_found', message: 'No such page.' } });
  });
});
