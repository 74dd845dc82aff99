/**
 * The console behind the lab's secret (CONSOLE_SECRET), over real HTTP against its real entry point: no
 * page, file, API, event stream or control without a session (every route the app declares, each
 * control checked for having changed nothing); the login form and its script (the sign-in link); the
 * HttpOnly SameSite=Strict cookie; the secret never in an answer or the console's output. Beside it, the
 * same console without a secret (the control: behaviour as before) and CONSOLE_ALLOWED_HOSTS for a
 * published address.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HealthSchema } from '../../app/api/schemas/health.js';
import { createConsoleApp } from '../../app/console/app.js';
import { LOGIN_CONTENT_SECURITY_POLICY } from '../../app/service-kit/browser-guard.js';
import { type Answer, call } from '../helpers/loopback-http.js';
import { spawnNode } from '../helpers/service-process.js';
import { send, standIn } from '../n8n/stand-in.js';
import { type ConsoleLab, startConsoleLab, waitForLine } from './harness.js';
import { standInDeps } from './stand-in-deps.js';

const SECRET = 'correct horse battery staple';
const BOUND = '192.0.2.10:8088';
/** The secured console's cookie: its lab's and published port's (console-session.test.ts). */
const COOKIE = 'soar_console_alice_8088';

/** One request whose Host header is the test's (fetch would not let a test send another one). */
const raw = (
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
) => call(base, path, { method, headers, body });

const FORM = { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' };

let secured: ConsoleLab;
let open: ConsoleLab;
/** The secured console's workflow platform: records what reaches it (approvals, test alerts). */
let n8nUrl: string;
const reachedN8n: string[] = [];
beforeAll(async () => {
  const n8n = await standIn((call, res) => {
    reachedN8n.push(`${call.method} ${call.url}`);
    send(res, 200, {});
  }, 'file');
  n8nUrl = n8n.url;
  [secured, open] = await Promise.all([
    startConsoleLab({
      CONSOLE_SECRET: SECRET,
      CONSOLE_ALLOWED_HOSTS: '192.0.2.10',
      N8N_URL: n8nUrl,
      CONSOLE_LAB: 'alice',
      CONSOLE_PUBLISHED_PORT: '8088',
    }),
    startConsoleLab(),
  ]);
});
afterAll(async () => {
  await Promise.all([secured?.stop(), open?.stop()]);
});

/** Every route the console's app declares (the guard's `*` aside), built in process with stand-ins. */
function declaredRoutes(): { method: string; path: string }[] {
  const app = createConsoleApp(standInDeps());
  return app.routes.filter((r) => r.method !== 'ALL').map(({ method, path }) => ({ method, path }));
}

/** Well-formed bodies for the controls: refused for want of a session, not for their shape. */
const controlBodies = (): Record<string, unknown> => ({
  '/api/reset': { confirm: true },
  '/api/case-mode': { mode: 'failed' },
  '/api/clock': { advance_minutes: 60 },
  '/api/approve': {
    resume_url: `${n8nUrl}/webhook-waiting/4711?signature=guessed`,
    decision: 'approve',
    approver: 'someone-else',
  },
  '/api/alert': { kind: 'positive' },
  '/api/check': { stage: 'webhook' },
});

/** The mock API's own view of what the controls change: its case mode and its clock (ms). */
async function mockApiNow(lab: ConsoleLab): Promise<{ caseMode: string; now: number }> {
  const health = HealthSchema.parse(await (await fetch(`${lab.api.url}/health`)).json());
  const state = z.object({ now: z.iso.datetime() }).parse(await (await fetch(`${lab.api.url}/state`)).json());
  return { caseMode: health.case_mode, now: Date.parse(state.now) };
}

async function login(base: string, secret: string, host?: string): Promise<Answer> {
  const h = host ?? new URL(base).host;
  return raw(
    base,
    'POST',
    '/login',
    { ...FORM, host: h, origin: `http://${h}` },
    new URLSearchParams({ secret }).toString(),
  );
}

const sessionOf = (answer: Answer) =>
  new RegExp(`${COOKIE}=([^;]+)`).exec(String(answer.headers['set-cookie'] ?? ''))?.[1];

describe('with CONSOLE_SECRET set', () => {
  it('answers every page, file, API and control without a session with 401 or the login redirect, never the data', async () => {
    const routes = declaredRoutes();
    const posts = routes.filter((r) => r.method === 'POST').map((r) => r.path);
    expect(posts).toEqual(expect.arrayContaining(['/api/reset', '/api/approve']));
    const bodies = controlBodies();
    await fetch(`${secured.api.url}/control/case-mode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"mode":"fail_next_write"}',
    });
    const before = await mockApiNow(secured);
    expect(before.caseMode).toBe('fail_next_write');
    reachedN8n.length = 0;

    const refused = {
      error: { code: 'login_required', message: 'Sign in with the lab secret first (/login).' },
    };
    for (const { method, path } of routes) {
      if (method === 'GET') {
        const answer = await raw(secured.consoleUrl, 'GET', path);
        expect(answer.status, path).toBe(401);
        expect(JSON.parse(answer.body), path).toEqual(refused);
        // A browser opening any of them as a page is sent to the login form.
        const page = await raw(secured.consoleUrl, 'GET', path, { 'sec-fetch-dest': 'document' });
        expect([page.status, page.headers.location, page.body], path).toEqual([303, '/login', '']);
      } else {
        // A same-origin JSON POST with a guessed token: the session comes first.
        const answer = await raw(
          secured.consoleUrl,
          'POST',
          path,
          { 'content-type': 'application/json', 'x-console-token': 'guess', origin: secured.consoleUrl },
          JSON.stringify(bodies[path] ?? {}),
        );
        expect(answer.status, path).toBe(401);
        expect(JSON.parse(answer.body), path).toEqual(refused);
      }
    }
    // A browser without Sec-Fetch-* headers, asking for HTML, is sent there too.
    const page = await raw(secured.consoleUrl, 'GET', '/', { accept: 'text/html' });
    expect([page.status, page.headers.location]).toEqual([303, '/login']);
    // Nothing was reset, switched, moved (the clock: +60 min), approved or sent.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const after = await mockApiNow(secured);
    expect(after.caseMode).toBe('fail_next_write');
    expect(after.now - before.now).toBeLessThan(30 * 60_000);
    expect(reachedN8n).toEqual([]);

    // The control: with a session the same reset and approval do reach the mock API and n8n.
    const session = { cookie: `${COOKIE}=${sessionOf(await login(secured.consoleUrl, SECRET))}` };
    const token = /name="console-token" content="([^"]+)"/.exec(
      (await raw(secured.consoleUrl, 'GET', '/', session)).body,
    )?.[1];
    for (const path of ['/api/reset', '/api/approve']) {
      const answer = await raw(
        secured.consoleUrl,
        'POST',
        path,
        {
          ...session,
          'content-type': 'application/json',
          'x-console-token': token ?? '',
          origin: secured.consoleUrl,
        },
        JSON.stringify(bodies[path]),
      );
      expect(answer.status, path).toBe(200);
    }
    expect((await mockApiNow(secured)).caseMode).toBe('healthy');
    expect(reachedN8n).toEqual(['POST /webhook-waiting/4711?signature=guessed']);
  });

  it('serves the login form, its stylesheet and its script (the sign-in link) without a session', async () => {
    const form = await raw(secured.consoleUrl, 'GET', '/login');
    expect(form.status).toBe(200);
    expect(form.body).toContain('<form id="login" method="post" action="/login">');
    // The script is a file (the CSP allows no inline script): the page's only script element.
    expect([...form.body.matchAll(/<script\b[^>]*>/g)].map((m) => m[0])).toEqual([
      '<script src="/login.js" defer>',
    ]);
    expect(form.headers['content-security-policy']).toBe(LOGIN_CONTENT_SECURITY_POLICY);
    expect(LOGIN_CONTENT_SECURITY_POLICY).toContain("script-src 'self';");
    expect(LOGIN_CONTENT_SECURITY_POLICY).not.toMatch(/unsafe|nonce-|sha256-/);
    expect(form.headers['content-security-policy']).toContain("form-action 'self'");
    // no-referrer would make a browser send `Origin: null` with the form, which the origin rule refuses.
    expect(form.headers['referrer-policy']).toBe('same-origin');
    expect((await raw(secured.consoleUrl, 'GET', '/login.css')).status).toBe(200);

    const script = await raw(secured.consoleUrl, 'GET', '/login.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['x-content-type-options']).toBe('nosniff');
    expect(script.body).toContain('replaceState');
    expect(script.body).not.toMatch(/\bimport\b|\bexport\b/); // one classic script, bundled
    // Without a secret there is no login, and no login script.
    expect((await raw(open.consoleUrl, 'GET', '/login.js')).status).toBe(404);
  });

  it('refuses a wrong secret slowly, sets no cookie; a JSON login is refused', async () => {
    for (const wrong of ['', 'correct horse battery stapl', `${SECRET}x`, 'x'.repeat(1000)]) {
      const answer = await login(secured.consoleUrl, wrong);
      expect(answer.status, wrong).toBe(401);
      expect(answer.headers['set-cookie'], wrong).toBeUndefined();
      expect(answer.body).toContain('That is not this lab');
      expect(answer.ms).toBeGreaterThanOrEqual(350);
    }
    const json = await raw(
      secured.consoleUrl,
      'POST',
      '/login',
      { 'content-type': 'application/json', origin: secured.consoleUrl },
      JSON.stringify({ secret: SECRET }),
    );
    expect(json.status).toBe(415);
    // A login from another origin is refused like any cross-origin POST.
    const cross = await raw(
      secured.consoleUrl,
      'POST',
      '/login',
      { ...FORM, origin: 'http://evil.example' },
      new URLSearchParams({ secret: SECRET }).toString(),
    );
    expect(cross.status).toBe(403);
    expect(cross.headers['set-cookie']).toBeUndefined();
  });

  it('the right secret opens a session: an HttpOnly SameSite=Strict cookie; then pages, API, events and controls work', async () => {
    const answer = await login(secured.consoleUrl, SECRET);
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toBe('/');
    const cookie = String(answer.headers['set-cookie']);
    expect(cookie).toMatch(
      new RegExp(`^${COOKIE}=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=/; HttpOnly; SameSite=Strict$`),
    );
    const session = { cookie: `${COOKIE}=${sessionOf(answer)}` };

    const page = await raw(secured.consoleUrl, 'GET', '/', session);
    expect(page.status).toBe(200);
    const token = /name="console-token" content="([^"]+)"/.exec(page.body)?.[1] ?? '';
    expect(token).not.toBe('');
    for (const path of ['/console.js', '/console.css', '/api/state', '/openapi.json', '/fields'])
      expect((await raw(secured.consoleUrl, 'GET', path, session)).status, path).toBe(200);
    const events = await raw(secured.consoleUrl, 'GET', '/api/events', session);
    expect(events.body).toMatch(/^event: state/m);

    const clock = await raw(
      secured.consoleUrl,
      'POST',
      '/api/clock',
      {
        ...session,
        'content-type': 'application/json',
        'x-console-token': token,
        origin: secured.consoleUrl,
      },
      '{"advance_minutes":5}',
    );
    expect(clock.status).toBe(200);
    expect(JSON.parse(clock.body)).toMatchObject({ ok: true, status: 200 });
    // A made-up session is no session.
    const forged = await raw(secured.consoleUrl, 'GET', '/api/state', { cookie: `${COOKIE}=AAAA` });
    expect(forged.status).toBe(401);
  });

  it('answers the published address named in CONSOLE_ALLOWED_HOSTS, behind the same login', async () => {
    expect((await raw(secured.consoleUrl, 'GET', '/api/state', { host: BOUND })).status).toBe(401);
    expect((await raw(secured.consoleUrl, 'GET', '/api/state', { host: '192.0.2.11:8088' })).status).toBe(
      421,
    );
    const answer = await login(secured.consoleUrl, SECRET, BOUND);
    expect(answer.status).toBe(303);
    const session = { cookie: `${COOKIE}=${sessionOf(answer)}`, host: BOUND };
    expect((await raw(secured.consoleUrl, 'GET', '/api/state', session)).status).toBe(200);
  });

  it('never prints the secret', () => {
    expect(secured.console.stdout() + secured.console.stderr()).not.toContain(SECRET);
    expect(secured.console.stdout()).toMatch(/the lab secret is asked for/);
  });
});

describe('without CONSOLE_SECRET (the control)', () => {
  it('serves the page, files and API with no login, as before', async () => {
    for (const path of ['/', '/console.js', '/api/state', '/api/session', '/openapi.json', '/fields'])
      expect((await raw(open.consoleUrl, 'GET', path)).status, path).toBe(200);
  });
});

describe('a bad secret setting', () => {
  it('refuses to start on a short secret, with one line that does not show it', async () => {
    const proc = spawnNode('app/console/main.ts', [], { CONSOLE_PORT: '0', CONSOLE_SECRET: 'short-one' });
    const { code } = await proc.exited;
    expect(code).toBe(2);
    expect(proc.stderr().trim()).toBe(
      'console: invalid CONSOLE_SECRET (not shown): must be at least 12 characters',
    );
    expect(proc.stdout() + proc.stderr()).not.toContain('short-one');
    await expect(waitForLine(proc, /listening/, 10)).rejects.toThrow();
  });
});
