/**
 * The anchor: plain Hono on @hono/node-server answering like bench/minimal-server.ts (GET /health a
 * constant JSON, GET /identity/<user> a lookup, POST /cases parse and upsert a Map, POST /reset). No
 * validation, journal, access checks or log: what the framework alone costs over node:http.
 *
 * The bench bundles it into plain JavaScript and runs it with node (bench/servers.ts).
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const IDENTITY = new Map([['lab-admin', { user: 'lab-admin', role: 'administrator' }]]);
const cases = new Map<unknown, Record<string, unknown>>();
const app = new Hono();
app.get('/health', (c) => c.json({ status: 'ok' }));
app.get('/identity/:user', (c) => {
  const found = IDENTITY.get(c.req.param('user'));
  return found ? c.json(found) : c.json({ error: 'not found' }, 404);
});
app.post('/cases', async (c) => {
  const body: Record<string, unknown> = await c.req.json();
  const existing = cases.get(body.event_id);
  const record = existing
    ? { ...existing, ...body, revision: Number(existing.revision) + 1 }
    : { ...body, revision: 1 };
  cases.set(body.event_id, record);
  return c.json(record, existing ? 200 : 201);
});
app.post('/reset', (c) => {
  cases.clear();
  return c.json({ reset: true });
});

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
serve(
  { fetch: app.fetch, port: Number(process.env.PORT ?? 8091), hostname: process.env.HOST ?? '127.0.0.1' },
  (info) => process.stdout.write(`listening on http://127.0.0.1:${info.port}\n`),
);
