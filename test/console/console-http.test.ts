/**
 * The console over real HTTP, no browser: its refusals (Host, Origin, Sec-Fetch-Site, token, JSON only,
 * no CORS), each next to the same request made valid (the control), the resume-URL rule (never an open
 * proxy: a table of URLs against a recording n8n stand-in and a recording "elsewhere"), the 409 retry, and
 * the poller's If-None-Match with and without a 304 from the mock API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, defaultDeps } from '../../app/api/app.js';
import { createConsoleApp } from '../../app/console/app.js';
import { loadConsoleConfig } from '../../app/console/config.js';
import { StateFeed } from '../../app/console/feed.js';
import { resumeTarget } from '../../app/console/resume.js';
import { mockApiClient } from '../../app/mock-api-client/client.js';
import { type Served, serveOnLoopback } from '../helpers/loopback-http.js';
import { type Call, type StandIn, standIn } from '../n8n/stand-in.js';

/** A recording stand-in (test/n8n/stand-in.ts): each request as its method, path and body, answered by `answer`. */
interface Recorder extends StandIn {
  hits: { method: string; url: string; body: string }[];
  answer: (call: Call, n: number) => [number, string];
}

async function recorder(
  answer: Recorder['answer'] = () => [200, '{"message":"Resumed"}'],
  lasts: 'test' | 'file' = 'test',
): Promise<Recorder> {
  const rec: Recorder = Object.assign(
    await standIn((call, res) => {
      rec.hits.push({ method: call.method, url: call.url, body: call.text });
      const [status, text] = rec.answer(call, rec.hits.length);
      res.writeHead(status, { 'content-type': 'application/json' }).end(text);
    }, lasts),
    { hits: [], answer },
  );
  return rec;
}

const TOKEN = 'test-token';
const PUBLIC = 'http://127.0.0.1:5678';
let mock: Served;
let mockUrl: string;
let n8n: Recorder;
let elsewhere: Recorder;
let feed: StateFeed;
let app: ReturnType<typeof createConsoleApp>;

beforeAll(async () => {
  mock = await serveOnLoopback(createApp(defaultDeps()).fetch);
  mockUrl = mock.url;
  n8n = await recorder(undefined, 'file');
  elsewhere = await recorder(undefined, 'file');
  const api = mockApiClient({ kind: 'http', url: mockUrl });
  feed = new StateFeed({ api, pollMs: 60_000, checkReport: null });
  app = createConsoleApp({
    feed,
    api,
    n8nUrl: n8n.url,
    n8nPublicUrl: PUBLIC,
    allowedHosts: ['console.lab'],
    token: TOKEN,
    resumeRetryMs: 1500,
  });
});
afterAll(() => mock.close());

const HOST = '127.0.0.1:8088';
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  app.request(path, {
    method: 'POST',
    headers: {
      host: HOST,
      'content-type': 'application/json',
      'x-console-token': TOKEN,
      origin: `http://${HOST}`,
      'sec-fetch-site': 'same-origin',
      ...headers,
    },
    body: JSON.stringify(body),
  });

describe('console refusals, each beside its valid control', () => {
  it('answers the Hosts it serves and refuses others (DNS rebinding) with 421', async () => {
    for (const host of [HOST, 'localhost:8088', '[::1]:8088', 'console.lab', 'LOCALHOST.']) {
      expect((await app.request('/', { headers: { host } })).status, host).toBe(200);
    }
    for (const host of [
      'attacker.example:8088',
      '127.0.0.1.nip.io',
      'localhost.attacker.example',
      '10.0.0.5',
    ]) {
      const res = await app.request('/', { headers: { host } });
      expect(res.status, host).toBe(421);
      expect(await res.json()).toMatchObject({ error: { code: 'host_not_allowed' } });
    }
  });

  it('opens the page from a link elsewhere (a navigation) but refuses cross-site reads', async () => {
    const nav = { host: HOST, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' };
    expect((await app.request('/', { headers: nav })).status).toBe(200);
    for (const mode of ['cors', 'no-cors']) {
      const res = await app.request('/api/state', {
        headers: { host: HOST, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': mode },
      });
      expect(res.status, mode).toBe(403);
    }
    const post = await app.request('/api/reset', {
      method: 'POST',
      headers: { ...nav, 'content-type': 'application/json', 'x-console-token': TOKEN },
      body: '{"confirm":true}',
    });
    expect(post.status).toBe(403);
  });

  it('sets a strict CSP and the other security headers on every answer, refusals included', async () => {
    for (const res of [
      await app.request('/', { headers: { host: HOST } }),
      await app.request('/', { headers: { host: 'evil.example' } }),
      await post('/api/clock', { advance_minutes: 1 }, { origin: 'http://evil.example' }),
    ]) {
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
    const page = await (await app.request('/', { headers: { host: HOST } })).text();
    expect(page).not.toMatch(/<script>|<style>| on\w+=/);
  });

  it('a state-changing request needs the same origin, JSON and the token', async () => {
    const valid = await post('/api/case-mode', { mode: 'failed' });
    expect(valid.status).toBe(200);
    expect(await valid.json()).toMatchObject({ ok: true, answer: { case_mode: 'failed' } });
    const refusals: [Record<string, string>, number, string][] = [
      [{ origin: 'http://evil.example' }, 403, 'origin_not_allowed'],
      [{ origin: 'http://127.0.0.1:9999' }, 403, 'origin_not_allowed'],
      [{ origin: 'null' }, 403, 'origin_not_allowed'],
      [{ 'sec-fetch-site': 'cross-site' }, 403, 'cross_site'],
      [{ 'sec-fetch-site': 'same-site' }, 403, 'cross_site'],
      [{ 'x-console-token': 'guess' }, 403, 'token_missing'],
      [{ 'x-console-token': '' }, 403, 'token_missing'],
      [{ 'content-type': 'text/plain' }, 415, 'json_only'],
      [{ 'content-type': 'application/x-www-form-urlencoded' }, 415, 'json_only'],
    ];
    for (const [headers, status, code] of refusals) {
      const res = await post('/api/case-mode', { mode: 'healthy' }, headers);
      expect(res.status, JSON.stringify(headers)).toBe(status);
      expect(await res.json()).toMatchObject({ error: { code } });
    }
    // None of them reached the mock API: the mode is still what the valid request set.
    expect(JSON.parse(await (await fetch(`${mockUrl}/health`)).text())).toMatchObject({
      case_mode: 'failed',
    });
    // curl sends no Origin and no Sec-Fetch-Site: with the token it may script the console.
    const scripted = await app.request('/api/case-mode', {
      method: 'POST',
      headers: { host: HOST, 'content-type': 'application/json', 'x-console-token': TOKEN },
      body: '{"mode":"healthy"}',
    });
    expect(scripted.status).toBe(200);
  });

  it('does no CORS: a preflight gets 405 without Access-Control headers', async () => {
    const res = await app.request('/api/reset', {
      method: 'OPTIONS',
      headers: { host: HOST, origin: 'http://evil.example', 'access-control-request-method': 'POST' },
    });
    expect([403, 405]).toContain(res.status);
    expect([...res.headers.keys()].filter((k) => k.startsWith('access-control'))).toEqual([]);
    const own = await app.request('/api/reset', { method: 'OPTIONS', headers: { host: HOST } });
    expect(own.status).toBe(405);
  });

  it('reset needs {"confirm": true}', async () => {
    expect((await post('/api/reset', {})).status).toBe(400);
    const res = await post('/api/reset', { confirm: true });
    expect(await res.json()).toMatchObject({ ok: true, answer: { reset: true } });
  });
});

describe('approvals go to the lab workflow platform only (never an open proxy)', () => {
  const sig = 'a'.repeat(64);
  it.each([
    [`${PUBLIC}/webhook-waiting/42?signature=${sig}`, `/webhook-waiting/42?signature=${sig}`],
    [`${PUBLIC}/webhook-waiting/0b4e-11aa?signature=${sig}`, `/webhook-waiting/0b4e-11aa?signature=${sig}`],
    [`${PUBLIC}/webhook-waiting/42/approve`, '/webhook-waiting/42/approve'],
  ])('accepts %s, rewritten onto N8N_URL', async (given, path) => {
    const before = n8n.hits.length;
    const res = await post('/api/approve', { resume_url: given, decision: 'approve', approver: 'ann' });
    expect(await res.json()).toMatchObject({ ok: true, status: 200, attempts: 1 });
    expect(n8n.hits.slice(before)).toEqual([
      { method: 'POST', url: path, body: '{"decision":"approve","approver":"ann"}' },
    ]);
  });

  it("approves a trainee's own request: no approval channel, the URL as $execution.resumeUrl inside the message", async () => {
    const resumeUrl = `${PUBLIC}/webhook-waiting/731?signature=${sig}`;
    await mockApiClient({ kind: 'http', url: mockUrl }).request('POST', '/notify', {
      channel: 'slack',
      event_id: 'evt-own-1',
      message: `Block 203.0.113.66? Approve or reject here: ${resumeUrl}.`,
    });
    await feed.refresh();
    const shown = feed.view.approvals.find((a) => a.event_id === 'evt-own-1');
    expect(shown).toMatchObject({ resume_url: resumeUrl, status: 'pending', subject: 'Approval requested' });
    const before = n8n.hits.length;
    const res = await post('/api/approve', {
      resume_url: shown?.resume_url,
      decision: 'approve',
      approver: 'ann',
    });
    expect(await res.json()).toMatchObject({ ok: true, status: 200 });
    expect(n8n.hits.slice(before)).toEqual([
      {
        method: 'POST',
        url: `/webhook-waiting/731?signature=${sig}`,
        body: '{"decision":"approve","approver":"ann"}',
      },
    ]);
    await feed.refresh();
    expect(feed.view.approvals.find((a) => a.event_id === 'evt-own-1')?.status).toBe('answered');
  });

  it('refuses every other URL without sending anything anywhere', async () => {
    const other = new URL(elsewhere.url);
    const refused = [
      `${elsewhere.url}/webhook-waiting/42?signature=${sig}`,
      `http://localhost:5678/webhook-waiting/42?signature=${sig}`,
      `https://127.0.0.1:5678/webhook-waiting/42?signature=${sig}`,
      `http://127.0.0.1:5679/webhook-waiting/42`,
      `http://user:pw@127.0.0.1:5678/webhook-waiting/42`,
      `${PUBLIC}/webhook/suspicious-login`,
      `${PUBLIC}/rest/owner/setup`,
      `${PUBLIC}/webhook-waiting/../rest/login`,
      `${PUBLIC}/webhook-waiting/%2e%2e/rest/login`,
      `${PUBLIC}/webhook-waiting/42/../../rest`,
      // Normalises to a valid path, but only the literal form is accepted.
      `${PUBLIC}/webhook-waiting/x/../42`,
      `${PUBLIC}//webhook-waiting/42`,
      `${PUBLIC}/webhook-waiting/42?signature=${sig}&url=${other.href}`,
      `${PUBLIC}/webhook-waiting/42#x`,
      `${PUBLIC}/webhook-waiting/`,
      `${PUBLIC}@${other.host}/webhook-waiting/42`,
      `file:///etc/passwd`,
      'not a url',
    ];
    const [n8nBefore, elsewhereBefore] = [n8n.hits.length, elsewhere.hits.length];
    for (const given of refused) {
      const res = await post('/api/approve', { resume_url: given, decision: 'approve', approver: 'ann' });
      expect(res.status, given).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: 'not_a_resume_url' } });
    }
    expect([n8n.hits.length, elsewhere.hits.length]).toEqual([n8nBefore, elsewhereBefore]);
  });

  it('resumeTarget: the rule as a table', () => {
    expect(resumeTarget(`${PUBLIC}/webhook-waiting/7?signature=ab`, PUBLIC, 'http://n8n:5678/')).toEqual({
      ok: true,
      url: 'http://n8n:5678/webhook-waiting/7?signature=ab',
    });
    expect(resumeTarget(`${PUBLIC}/webhook-waiting/7`, 'http://127.0.0.1:8000', 'http://n8n:5678').ok).toBe(
      false,
    );
    expect(resumeTarget(42, PUBLIC, 'http://n8n:5678').ok).toBe(false);
  });

  it('retries n8n’s 409 "running already" until the Wait node waits, then reports it', async () => {
    n8n.answer = (_req, n) =>
      n <= 2 ? [409, '{"message":"The execution is running already"}'] : [200, '{}'];
    n8n.hits.length = 0;
    const res = await post('/api/approve', {
      resume_url: `${PUBLIC}/webhook-waiting/9?signature=${sig}`,
      decision: 'reject',
      approver: 'bo',
    });
    const json = (await res.json()) as { ok: boolean; attempts: number; message: string };
    expect(json).toMatchObject({ ok: true, status: 200, attempts: 3 });
    expect(json.message).toContain('after 3 tries');
    // Always 409: it gives up within the retry window and says so.
    n8n.answer = () => [409, '{"message":"running already"}'];
    const started = Date.now();
    const stuck = (await (
      await post('/api/approve', {
        resume_url: `${PUBLIC}/webhook-waiting/9`,
        decision: 'approve',
        approver: 'bo',
      })
    ).json()) as { ok: boolean; status: number; message: string };
    expect(stuck).toMatchObject({ ok: false, status: 409 });
    expect(stuck.message).toContain('try again');
    expect(Date.now() - started).toBeLessThan(3000);
    n8n.answer = () => [200, '{}'];
  });
});

describe('the poller', () => {
  it('sends If-None-Match and changes the view on 200s only when the state changed; 304s cost nothing', async () => {
    let etagSupport = true;
    const seen: (string | undefined)[] = [];
    let body = JSON.stringify({
      case_mode: 'healthy',
      now: new Date().toISOString(),
      cases: [],
      notifications: [],
      blocklist: [],
      blocklist_history: [],
      journal: [],
    });
    const api = await recorder((req) => {
      if (req.url === '/health') return [200, '{"limits":{"cases":1000,"notifications":1000}}'];
      seen.push(req.headers['if-none-match']);
      if (etagSupport && req.headers['if-none-match'] === '"v1"') return [304, ''];
      return [200, body.replace(/"now":"[^"]*"/, `"now":"${new Date().toISOString()}"`)];
    });
    api.server.on('request', (_req, res) => {
      if (etagSupport) res.setHeader('etag', '"v1"');
    });
    const feed = new StateFeed({
      api: mockApiClient({ kind: 'http', url: api.url }),
      pollMs: 60_000,
      checkReport: null,
    });
    const versions: number[] = [];
    feed.subscribe((v) => versions.push(v.version));
    await feed.refresh();
    await feed.refresh();
    await feed.refresh();
    expect(seen).toEqual([undefined, '"v1"', '"v1"']);
    expect(versions).toEqual([1]);
    // Without ETag support: full answers, still one version while nothing but the clock's tick changes.
    etagSupport = false;
    await feed.refresh();
    await feed.refresh();
    expect(versions).toEqual([1]);
    body = body.replace('"healthy"', '"failed"');
    await feed.refresh();
    expect(versions).toEqual([1, 2]);
    expect(feed.view.state?.case_mode).toBe('failed');
    await new Promise((r) => api.server.close(r));
    await feed.refresh();
    expect(feed.view.error).toMatch(/does not answer/);
    expect(versions).toEqual([1, 2, 3]);
  });

  it('polls only while a browser listens, and a read with nobody listening polls once', async () => {
    let polls = 0;
    const api = await recorder((req) => {
      if (req.url !== '/state') return [200, '{"limits":{"cases":1000,"notifications":1000}}'];
      polls += 1;
      const empty = { cases: [], notifications: [], blocklist: [], blocklist_history: [], journal: [] };
      return [200, JSON.stringify({ case_mode: 'healthy', ...empty, now: new Date().toISOString() })];
    });
    const client = mockApiClient({ kind: 'http', url: api.url });
    const feed = new StateFeed({ api: client, pollMs: 25, checkReport: null });
    const app = createConsoleApp({
      feed,
      api: client,
      n8nUrl: n8n.url,
      n8nPublicUrl: PUBLIC,
      allowedHosts: [],
      token: TOKEN,
    });
    const settle = () => new Promise((r) => setTimeout(r, 200));
    feed.start();
    await settle();
    expect(polls).toBe(0);
    expect(feed.polling).toBe(false);
    const read = await app.request('/api/state', { headers: { host: HOST } });
    expect(read.status).toBe(200);
    expect(polls).toBe(1);
    const unsubscribe = feed.subscribe(() => {});
    await settle();
    expect(feed.polling).toBe(true);
    expect(polls).toBeGreaterThan(3);
    unsubscribe();
    const after = polls;
    await settle();
    expect(feed.polling).toBe(false);
    expect(polls).toBeLessThanOrEqual(after + 1);
    feed.stop();
    await new Promise((r) => api.server.close(r));
  });
});

describe('console configuration', () => {
  it('defaults, and one clear line on a bad value', () => {
    expect(loadConsoleConfig({})).toMatchObject({
      host: '127.0.0.1',
      port: 8088,
      mockApiUrl: 'http://127.0.0.1:8081',
      n8nUrl: 'http://127.0.0.1:5678',
    });
    expect(() => loadConsoleConfig({ N8N_URL: 'ftp://x' })).toThrow(/N8N_URL/);
    expect(() => loadConsoleConfig({ MOCK_API_SOCKET: 'rel.sock' })).toThrow(/MOCK_API_SOCKET.*absolute/);
    expect(() => loadConsoleConfig({ CONSOLE_PORT: '99999' })).toThrow(/CONSOLE_PORT/);
  });
});
