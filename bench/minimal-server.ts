/**
 * The physical limit: the least a node:http server can do to answer the benchmarked routes' shapes. No
 * framework, no validation, no journal, no log, no access checks. GET /health answers a constant JSON;
 * GET /identity/<user> looks a constant record up; POST /cases parses the body and upserts a Map;
 * POST /blocklist and DELETE /blocklist/<ip> set and delete a Map entry; GET /state serialises what it
 * holds. It shares nothing with the service on purpose: it is what node:http itself costs, the bar the
 * service's ratio is measured against (bench/run.ts).
 *
 * After `POST /state-bytes {"bytes": n}`, GET /state answers n bytes from one constant buffer instead:
 * the physical limit for an answer of that size (the bench sets n to the service's /state length).
 *
 * The bench bundles it into plain JavaScript and runs it with node (bench/servers.ts).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

const TYPE = { 'content-type': 'application/json; charset=utf-8' };
const HEALTH = JSON.stringify({ status: 'ok' });
const IDENTITY = new Map([['lab-admin', JSON.stringify({ user: 'lab-admin', role: 'administrator' })]]);
type Json = Record<string, unknown>;
const cases = new Map<unknown, Json>();
const notifications: Json[] = [];
const blocklist = new Map<unknown, Json>();
/** Set by POST /state-bytes: GET /state then answers these bytes. */
let stateBytes: Buffer | undefined;

const send = (res: ServerResponse, status: number, body: string | Buffer) => {
  res.writeHead(status, TYPE);
  res.end(body);
};

/** Reads the whole body, parses it; answers 400 on invalid JSON. */
function withBody(req: IncomingMessage, res: ServerResponse, then: (body: Json) => void) {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let value: Json;
    try {
      value = JSON.parse((chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString());
    } catch {
      return send(res, 400, '{"error":"invalid json"}');
    }
    then(value);
  });
}

// Exits normally on a signal, so `node --cpu-prof` writes its profile.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));

createServer((req, res) => {
  const { method } = req;
  const url = req.url ?? '/';
  if (method === 'GET' && url === '/health') return send(res, 200, HEALTH);
  if (method === 'GET' && url.startsWith('/identity/')) {
    const found = IDENTITY.get(url.slice(10));
    return found ? send(res, 200, found) : send(res, 404, '{"error":"not found"}');
  }
  if (method === 'GET' && url === '/state' && stateBytes) return send(res, 200, stateBytes);
  if (method === 'POST' && url === '/state-bytes')
    return withBody(req, res, (body) => {
      stateBytes = Buffer.alloc(Number(body.bytes), 'x');
      send(res, 200, '{}');
    });
  if (method === 'GET' && url === '/state')
    return send(
      res,
      200,
      JSON.stringify({ cases: [...cases.values()], notifications, blocklist: [...blocklist.values()] }),
    );
  if (method === 'POST' && url === '/cases')
    return withBody(req, res, (body) => {
      const existing = cases.get(body.event_id);
      const record = existing
        ? { ...existing, ...body, revision: Number(existing.revision) + 1 }
        : { ...body, revision: 1 };
      cases.set(body.event_id, record);
      send(res, existing ? 200 : 201, JSON.stringify(record));
    });
  if (method === 'POST' && url === '/notify')
    return withBody(req, res, (body) => {
      notifications.push(body);
      send(res, 201, JSON.stringify(body));
    });
  if (method === 'POST' && url === '/blocklist')
    return withBody(req, res, (body) => {
      if (blocklist.has(body.ip)) return send(res, 409, '{"error":"already blocked"}');
      blocklist.set(body.ip, body);
      send(res, 201, JSON.stringify(body));
    });
  if (method === 'DELETE' && url.startsWith('/blocklist/')) {
    const ip = url.slice(11);
    const found = blocklist.get(ip);
    if (!found) return send(res, 404, '{"error":"not blocked"}');
    blocklist.delete(ip);
    return send(res, 200, JSON.stringify(found));
  }
  if (method === 'POST' && url === '/reset')
    return withBody(req, res, () => {
      cases.clear();
      notifications.length = 0;
      blocklist.clear();
      send(res, 200, '{"reset":true}');
    });
  send(res, 404, '{"error":"not found"}');
}).listen(Number(process.env.PORT ?? 8090), process.env.HOST ?? '127.0.0.1', () => {
  process.stdout.write(`listening on port ${process.env.PORT ?? 8090}\n`);
});
