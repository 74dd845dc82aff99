#!/usr/bin/env node
/**
 * The baseline: a bare node:http server doing the same work as the service for the benchmarked routes,
 * with no framework, no schema library and no abstraction. Same routes, same JSON bodies in and out,
 * the same POST checks (type, length, JSON, object, fields, nesting), the same in-memory effects (cases
 * merged with a size check, blocklist with history, notifications, a 1,000-entry journal ring), the same
 * Host/Origin checks and one JSON log line per request, batched per tick. What this server reaches on a
 * machine is the physical limit the service is measured against.
 *
 * Usage: PORT=<port> node bench/bare-server.mjs   (prints `listening on http://127.0.0.1:<port>`)
 */
import { createServer } from 'node:http';
import { isIP } from 'node:net';

const JSON_TYPE = 'application/json; charset=utf-8';
const MAX_BODY = 64 * 1024;
const LIMIT = 1000;
const BLOCKABLE = '203.0.113.66';

const IDENTITIES = new Map(
  [
    ['lab-admin', 'administrator', true, 'Lab Administrator', 'IT Operations', 'active', true],
    ['alice.analyst', 'analyst', false, 'Alice Analyst', 'Security Operations', 'active', true],
    ['bob.developer', 'developer', false, 'Bob Developer', 'Engineering', 'active', false],
  ].map(([user, role, critical, display_name, department, status, mfa_enrolled]) => [
    user,
    { user, role, critical, display_name, department, status, mfa_enrolled },
  ]),
);

const startedAt = Date.now();
let mode = 'healthy';
const cases = new Map();
const notifications = [];
const blocklist = new Map();
const history = [];
const journal = new Array(LIMIT);
let journalStart = 0;
let journalSize = 0;
let seq = 0;

function record(method, path, status) {
  const entry = { seq: ++seq, at: new Date().toISOString(), method, path, status };
  const end = (journalStart + journalSize) % LIMIT;
  journal[end] = entry;
  if (journalSize < LIMIT) journalSize++;
  else journalStart = (journalStart + 1) % LIMIT;
}

let pending = [];
let scheduled = false;
function flushLogs() {
  scheduled = false;
  const chunk = `${pending.join('\n')}\n`;
  pending = [];
  process.stdout.write(chunk);
}
function log(method, path, status, started) {
  const ms = Math.round((performance.now() - started) * 1000) / 1000;
  pending.push(
    `{"time":"${new Date().toISOString()}","method":${JSON.stringify(method)},"path":${JSON.stringify(path)},"status":${status},"duration_ms":${ms}}`,
  );
  if (!scheduled) {
    scheduled = true;
    setImmediate(flushLogs);
  }
}

class Refusal {
  constructor(status, code, message, extra) {
    this.status = status;
    this.body = { error: { code, message }, ...extra };
  }
}
const refuse = (status, code, message, extra) => {
  throw new Refusal(status, code, message, extra);
};

function tooDeep(value, depth) {
  if (typeof value !== 'object' || value === null) return false;
  if (depth > 64) return true;
  for (const item of Array.isArray(value) ? value : Object.values(value))
    if (tooDeep(item, depth + 1)) return true;
  return false;
}

function readBody(req) {
  const type = req.headers['content-type'];
  const essence = type?.split(';')[0]?.trim().toLowerCase();
  if (essence !== 'application/json') refuse(415, 'unsupported_media_type', 'Content-Type must be JSON.');
  const length = req.headers['content-length'];
  if (length === undefined) refuse(411, 'length_required', 'Content-Length is required.');
  if (!/^\d{1,16}$/.test(length)) refuse(400, 'invalid_content_length', 'Bad Content-Length.');
  if (Number(length) > MAX_BODY) refuse(413, 'payload_too_large', 'Too large.');
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('error', reject);
    req.on('end', () => {
      try {
        const buf = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
        if (buf.length !== Number(length)) refuse(400, 'incomplete_body', 'Body cut short.');
        let value;
        try {
          value = JSON.parse(buf.toString('utf8'));
        } catch {
          refuse(400, 'invalid_json', 'Not JSON.');
        }
        if (typeof value !== 'object' || value === null || Array.isArray(value))
          refuse(400, 'body_not_object', 'Not an object.');
        if (tooDeep(value, 1)) refuse(400, 'invalid_json', 'Too deep.');
        resolve(value);
      } catch (err) {
        reject(err);
      }
    });
  });
}

const isString = (v) => typeof v === 'string';
const isObjectOrNull = (v) => v === undefined || v === null || (typeof v === 'object' && !Array.isArray(v));
const OWNED = ['id', 'status', 'accepted_at', 'created_at', 'updated_at', 'revision'];

function upsertCase(body) {
  const id = body.event_id;
  if (!isString(id) || id.length < 1 || id.length > 128) refuse(422, 'validation_failed', 'event_id');
  for (const f of ['evidence', 'verification', 'expiry', 'rollback'])
    if (!isObjectOrNull(body[f])) refuse(422, 'validation_failed', f);
  for (const f of ['result', 'final_action'])
    if (body[f] !== undefined && !isString(body[f])) refuse(422, 'validation_failed', f);
  if (body.approver !== undefined && body.approver !== null && !isString(body.approver))
    refuse(422, 'validation_failed', 'approver');
  if (mode !== 'healthy') {
    if (mode === 'fail_next_write') mode = 'healthy';
    refuse(503, 'case_connector_failed', 'Connector failing.');
  }
  const existing = cases.get(id);
  if (!existing && cases.size >= LIMIT) refuse(507, 'case_limit_reached', 'Reset.');
  const fields = { ...body };
  for (const k of OWNED) delete fields[k];
  const at = new Date().toISOString();
  const rec = existing
    ? { ...existing, ...fields, event_id: id, updated_at: at, revision: existing.revision + 1 }
    : { ...fields, event_id: id, created_at: at, updated_at: at, revision: 1 };
  if (existing && JSON.stringify(rec).length > MAX_BODY) refuse(507, 'case_too_large', 'Too large.');
  cases.set(id, rec);
  return [existing ? 200 : 201, rec, existing ? undefined : `/cases/${encodeURIComponent(id)}`];
}

function expire(now) {
  for (const [ip, a] of blocklist) {
    if (now < a.expiresAtMs) continue;
    blocklist.delete(ip);
    history.push({ ...a.entry, removed_at: a.entry.expires_at, removed_reason: 'expired' });
  }
}

function block(body) {
  if (!isString(body.ip) || isIP(body.ip) === 0) refuse(422, 'validation_failed', 'ip');
  if (!isString(body.event_id) || body.event_id.length < 1 || body.event_id.length > 128)
    refuse(422, 'validation_failed', 'event_id');
  const m = body.expires_minutes;
  if (!Number.isInteger(m) || m < 1 || m > 60) refuse(422, 'validation_failed', 'expires_minutes');
  if (body.ip !== BLOCKABLE) refuse(403, 'address_not_blockable', 'Only the lab address.');
  const now = Date.now();
  expire(now);
  const present = blocklist.get(body.ip);
  if (present) refuse(409, 'already_blocked', 'Already blocked.', { entry: present.entry });
  const expiresAtMs = now + m * 60_000;
  const entry = {
    ip: body.ip,
    event_id: body.event_id,
    expires_minutes: m,
    created_at: new Date(now).toISOString(),
    expires_at: new Date(expiresAtMs).toISOString(),
  };
  blocklist.set(body.ip, { entry, expiresAtMs });
  return entry;
}

function unblock(ip) {
  if (isIP(ip) === 0) refuse(400, 'invalid_ip', 'Not an IP.');
  const now = Date.now();
  expire(now);
  const present = blocklist.get(ip);
  if (!present) refuse(404, 'not_blocked', 'Not blocked.');
  blocklist.delete(ip);
  history.push({ ...present.entry, removed_at: new Date(now).toISOString(), removed_reason: 'unblocked' });
  if (history.length > LIMIT) history.shift();
  return { ip, removed: true, blocked: false, entry: present.entry };
}

function journalList() {
  const out = new Array(journalSize);
  for (let i = 0; i < journalSize; i++) out[i] = journal[(journalStart + i) % LIMIT];
  return out;
}

async function route(req, method, path) {
  if (method === 'GET' && path === '/health') {
    const now = Date.now();
    expire(now);
    return [
      200,
      {
        status: 'ok',
        case_mode: mode,
        uptime_s: Math.floor((now - startedAt) / 1000),
        counts: { cases: cases.size, notifications: notifications.length, blocklist: blocklist.size },
        limits: { cases: LIMIT, notifications: LIMIT },
        version: '1.0.0',
      },
    ];
  }
  if (method === 'GET' && path.startsWith('/identity/')) {
    const identity = IDENTITIES.get(decodeURIComponent(path.slice(10)));
    if (!identity) refuse(404, 'identity_not_found', 'No such identity.');
    return [200, identity];
  }
  if (method === 'POST' && path === '/cases') return upsertCase(await readBody(req));
  if (method === 'POST' && path === '/blocklist') return [201, block(await readBody(req))];
  if (method === 'DELETE' && path.startsWith('/blocklist/'))
    return [200, unblock(decodeURIComponent(path.slice(11)))];
  if (method === 'POST' && path === '/notify') {
    const body = await readBody(req);
    if (!isString(body.message) || body.message === '') refuse(422, 'validation_failed', 'message');
    if (notifications.length >= LIMIT) refuse(507, 'notification_limit_reached', 'Reset.');
    const fields = { ...body };
    for (const k of OWNED) delete fields[k];
    const rec = {
      id: `ntf-${String(notifications.length + 1).padStart(6, '0')}`,
      status: 'accepted',
      accepted_at: new Date().toISOString(),
      ...fields,
      message: body.message,
    };
    notifications.push(rec);
    return [202, rec];
  }
  if (method === 'GET' && path === '/state') {
    const now = Date.now();
    expire(now);
    return [
      200,
      {
        case_mode: mode,
        now: new Date(now).toISOString(),
        cases: [...cases.values()],
        notifications: [...notifications],
        blocklist: [...blocklist.values()].map((a) => a.entry),
        blocklist_history: [...history],
        journal: journalList(),
      },
    ];
  }
  if (method === 'POST' && path === '/reset') {
    const body = await readBody(req);
    if (Object.keys(body).length > 0) refuse(422, 'validation_failed', 'must be {}');
    cases.clear();
    notifications.length = 0;
    blocklist.clear();
    history.length = 0;
    journalSize = 0;
    mode = 'healthy';
    return [200, { reset: true, case_mode: 'healthy' }];
  }
  if (method === 'POST' && path === '/control/case-mode') {
    const body = await readBody(req);
    if (!['healthy', 'failed', 'fail_next_write'].includes(body.mode))
      refuse(422, 'validation_failed', 'mode');
    const previous = mode;
    mode = body.mode;
    return [200, { case_mode: mode, previous_mode: previous }];
  }
  refuse(404, 'not_found', 'No route.');
}

function hostAllowed(host) {
  if (host === undefined) return true;
  let name = host.toLowerCase();
  const colon = name.lastIndexOf(':');
  if (colon !== -1 && !name.startsWith('[')) name = name.slice(0, colon);
  return name === 'localhost' || name.startsWith('[') || isIP(name) === 4;
}

const server = createServer(async (req, res) => {
  const started = performance.now();
  const method = req.method ?? 'GET';
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  let status;
  let body;
  let location;
  try {
    if (req.headers.origin !== undefined) refuse(403, 'origin_not_allowed', 'No browsers.');
    if (!hostAllowed(req.headers.host)) refuse(403, 'host_not_allowed', 'Unknown host.');
    [status, body, location] = await route(req, method, path);
  } catch (err) {
    if (!(err instanceof Refusal)) throw err;
    status = err.status;
    body = err.body;
  }
  const text = JSON.stringify(body);
  const headers = { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(text) };
  if (location) headers.location = location;
  res.writeHead(status, headers);
  res.end(text);
  if (!((method === 'GET' || method === 'HEAD') && (path === '/health' || path === '/state')))
    record(method, path, status);
  log(method, path, status, started);
});
server.keepAliveTimeout = 5000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
