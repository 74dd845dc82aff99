/**
 * The console behind the lab's secret (CONSOLE_SECRET), over real HTTP against its real entry point: no
 * page, file, API or event stream without a session; the login form; the HttpOnly SameSite=Strict cookie;
 * the secret never in a URL, an answer or the console's output. Beside it, the same console without a
 * secret (the control: behaviour as before) and CONSOLE_ALLOWED_HOSTS for a published address.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnNode } from '../helpers/service-process.js';
import { type ConsoleLab, startConsoleLab, waitForLine } from './harness.js';

const SECRET = 'correct horse battery staple';
const BOUND = '192.0.2.10:8088';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  ms: number;
}

/** node:http, so the Host header is ours to set (fetch would not let a test send another one). */
function raw(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  const url = new URL(base);
  const began = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname: url.hostname,
        port: url.port,
        method,
        path,
        headers: {
          host: url.host,
          ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        // An event stream never ends: the first event is enough.
        res.on('data', (d) => {
          text += d;
          if (res.headers['content-type']?.startsWith('text/event-stream') && text.includes('\n\n')) {
            res.destroy();
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: text,
              ms: performance.now() - began,
            });
          }
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: text,
            ms: performance.now() - began,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' };

let secured: ConsoleLab;
let open: ConsoleLab;
beforeAll(async () => {
  [secured, open] = await Promise.all([
    startConsoleLab({ CONSOLE_SECRET: SECRET, CONSOLE_ALLOWED_HOSTS: '192.0.2.10' }),
    startConsoleLab(),
  ]);
});
afterAll(async () => {
  await Promise.all([secured?.stop(), open?.stop()]);
});

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
  /console_session=([^;]+)/.exec(String(answer.headers['set-cookie'] ?? ''))?.[1];

describe('with CONSOLE_SECRET set', () => {
  it('serves nothing but the login form without a session', async () => {
    const page = await raw(secured.consoleUrl, 'GET', '/', { accept: 'text/html' });
    expect(page.status).toBe(303);
    expect(page.headers.location).toBe('/login');
    for (const path of [
      '/console.js',
      '/console.css',
      '/api/state',
      '/api/session',
      '/api/events',
      '/openapi.json',
      '/fields',
    ]) {
      const answer = await raw(secured.consoleUrl, 'GET', path);
      expect(answer.status, path).toBe(401);
      expect(JSON.parse(answer.body), path).toMatchObject({ error: { code: 'login_required' } });
    }
    // A POST with a guessed token changes nothing: the session comes first.
    const clock = await raw(
      secured.consoleUrl,
      'POST',
      '/api/clock',
      { 'content-type': 'application/json', 'x-console-token': 'guess' },
      '{"advance_minutes":60}',
    );
    expect(clock.status).toBe(401);
    const form = await raw(secured.consoleUrl, 'GET', '/login');
    expect(form.status).toBe(200);
    expect(form.body).toContain('<form method="post" action="/login">');
    expect(form.headers['content-security-policy']).toContain("form-action 'self'");
    // no-referrer would make a browser send `Origin: null` with the form, which the origin rule refuses.
    expect(form.headers['referrer-policy']).toBe('same-origin');
    expect((await raw(secured.consoleUrl, 'GET', '/login.css')).status).toBe(200);
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
      /^console_session=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/,
    );
    const session = { cookie: `console_session=${sessionOf(answer)}` };

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
    const forged = await raw(secured.consoleUrl, 'GET', '/api/state', { cookie: 'console_session=AAAA' });
    expect(forged.status).toBe(401);
  });

  it('answers the published address named in CONSOLE_ALLOWED_HOSTS, behind the same login', async () => {
    expect((await raw(secured.consoleUrl, 'GET', '/api/state', { host: BOUND })).status).toBe(401);
    expect((await raw(secured.consoleUrl, 'GET', '/api/state', { host: '192.0.2.11:8088' })).status).toBe(
      421,
    );
    const answer = await login(secured.consoleUrl, SECRET, BOUND);
    expect(answer.status).toBe(303);
    const session = { cookie: `console_session=${sessionOf(answer)}`, host: BOUND };
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
