/**
 * The console's session where labs share one host address (a class on a LAN), over real HTTP: each lab's
 * console has a cookie name of its own (lab and published port), so two labs' consoles never take each
 * other's cookie; a session holds only from the client address that signed in (a copy replayed from
 * another address, as a trainee could lift it from their n8n's run data, is refused as if unsigned); and
 * LAB_PUBLIC_ORIGIN lets a TLS proxy front the lab: its origin accepted, the cookie Secure, the client the
 * proxy's X-Forwarded-For. The consoles are the real app on real sockets; the first and the refusals
 * are the real entry point.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleApp } from '../../app/console/app.js';
import { loadConsoleConfig, sessionSettings } from '../../app/console/config.js';
import { Sessions } from '../../app/console/session.js';
import { type Answer, call, type Served, serveOnLoopback } from '../helpers/loopback-http.js';
import { spawnNode } from '../helpers/service-process.js';
import { waitForLine } from './harness.js';
import { standInDeps } from './stand-in-deps.js';

const SECRET = 'the-same-secret-in-both-labs';

/** A lab's console on a socket, with the name of its session cookie. */
type LabConsole = Served & { cookie: string };

/** One lab's console from its environment (config → sessions → the app), on 127.0.0.1. */
async function serveConsole(env: Record<string, string>): Promise<LabConsole> {
  const config = loadConsoleConfig({ CONSOLE_SECRET: SECRET, ...env });
  const settings = sessionSettings(config);
  const app = createConsoleApp(
    standInDeps({ allowedHosts: config.allowedHosts, sessions: new Sessions(SECRET, settings) }),
  );
  return { ...(await serveOnLoopback(app.fetch)), cookie: settings.cookie };
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' };

function signIn(base: string, init: { headers?: Record<string, string>; from?: string } = {}) {
  return call(base, '/login', {
    method: 'POST',
    headers: { ...FORM, origin: base, ...init.headers },
    body: new URLSearchParams({ secret: SECRET }).toString(),
    ...(init.from === undefined ? {} : { from: init.from }),
  });
}

/** The `name=value` pair of the cookie a sign-in set. */
const pairOf = (answer: Answer) => answer.header('set-cookie').split(';')[0] ?? '';

let alice: LabConsole;
let bob: LabConsole;
let proxied: LabConsole;
beforeAll(async () => {
  [alice, bob, proxied] = await Promise.all([
    serveConsole({ CONSOLE_LAB: 'alice', CONSOLE_PUBLISHED_PORT: '8089' }),
    serveConsole({ CONSOLE_LAB: 'bob', CONSOLE_PUBLISHED_PORT: '8090' }),
    serveConsole({
      CONSOLE_LAB: 'carol',
      CONSOLE_PUBLISHED_PORT: '8091',
      LAB_PUBLIC_ORIGIN: 'https://lab.example.org',
    }),
  ]);
});
afterAll(async () => {
  await Promise.all([alice?.close(), bob?.close(), proxied?.close()]);
});

describe('the session cookie, one name per lab and port', () => {
  it('is named for the lab and its published port; the single lab is `default`', () => {
    const cookie = (env: Record<string, string>) =>
      sessionSettings(loadConsoleConfig({ CONSOLE_SECRET: SECRET, ...env })).cookie;
    expect(cookie({ CONSOLE_LAB: 'alice', CONSOLE_PUBLISHED_PORT: '8089' })).toBe('soar_console_alice_8089');
    expect(cookie({ CONSOLE_PUBLISHED_PORT: '8088' })).toBe('soar_console_default_8088');
    // Not published elsewhere (make run): the port it listens on.
    expect(cookie({ CONSOLE_PORT: '9000' })).toBe('soar_console_default_9000');
  });

  it('is set by the real entry point from CONSOLE_LAB and CONSOLE_PUBLISHED_PORT: HttpOnly, SameSite=Strict, Path=/, not Secure', async () => {
    const proc = spawnNode('app/console/main.ts', [], {
      CONSOLE_PORT: '0',
      MOCK_API_SOCKET: '/nonexistent/api.sock',
      CHECK_REPORT: '/nonexistent/check-last.json',
      CONSOLE_SECRET: SECRET,
      CONSOLE_LAB: 'dave',
      CONSOLE_PUBLISHED_PORT: '8092',
    });
    try {
      const [, url = ''] = await waitForLine(proc, /console listening on (http:\/\/\S+)/);
      const answer = await signIn(url);
      expect(answer.status).toBe(303);
      expect(answer.header('set-cookie')).toMatch(
        /^soar_console_dave_8092=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/,
      );
    } finally {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
  });

  it("two labs' consoles, even with the same secret, do not take each other's cookie", async () => {
    const fromAlice = await signIn(alice.url);
    const aliceCookie = pairOf(fromAlice);
    expect(aliceCookie).toMatch(/^soar_console_alice_8089=/);
    expect((await call(alice.url, '/api/session', { headers: { cookie: aliceCookie } })).status).toBe(200);
    // The browser sends alice's cookie to bob's port too (cookies ignore ports): bob does not read it,
    const atBob = await call(bob.url, '/api/session', { headers: { cookie: aliceCookie } });
    expect([atBob.status, JSON.parse(atBob.body).error.code]).toEqual([401, 'login_required']);
    // and alice's session under bob's name is no session of bob's.
    const renamed = aliceCookie.replace('soar_console_alice_8089', bob.cookie);
    expect((await call(bob.url, '/api/session', { headers: { cookie: renamed } })).status).toBe(401);
    // Signed in to both, each console reads its own cookie out of the two the browser sends.
    const both = `${aliceCookie}; ${pairOf(await signIn(bob.url))}`;
    expect((await call(alice.url, '/api/session', { headers: { cookie: both } })).status).toBe(200);
    expect((await call(bob.url, '/api/session', { headers: { cookie: both } })).status).toBe(200);
  });
});

describe('a session bound to the client address that signed in', () => {
  it('refuses the cookie replayed from another address as if unsigned: the API 401, a page the sign-in form', async () => {
    const cookie = pairOf(await signIn(alice.url, { from: '127.0.0.1' }));
    const session = await call(alice.url, '/api/session', { headers: { cookie }, from: '127.0.0.1' });
    expect(session.status).toBe(200);
    const token = JSON.parse(session.body).token;

    const read = await call(alice.url, '/api/session', { headers: { cookie }, from: '127.0.0.2' });
    expect([read.status, JSON.parse(read.body).error.code]).toEqual([401, 'login_required']);
    const clock = await call(alice.url, '/api/clock', {
      method: 'POST',
      from: '127.0.0.2',
      headers: {
        cookie,
        origin: alice.url,
        'content-type': 'application/json',
        'x-console-token': token,
      },
      body: '{"advance_minutes":60}',
    });
    expect([clock.status, JSON.parse(clock.body).error.code]).toEqual([401, 'login_required']);
    const page = await call(alice.url, '/', {
      headers: { cookie, 'sec-fetch-dest': 'document' },
      from: '127.0.0.2',
    });
    expect([page.status, page.header('location')]).toEqual([303, '/login']);
    // The browser that signed in keeps its session.
    expect((await call(alice.url, '/api/session', { headers: { cookie } })).status).toBe(200);
  });
});

describe('LAB_PUBLIC_ORIGIN: a TLS proxy in front', () => {
  const publicOrigin = 'https://lab.example.org:8091';
  const viaProxy = (client: string, extra: Record<string, string> = {}) => ({
    host: 'lab.example.org',
    'x-forwarded-for': client,
    ...extra,
  });

  it('accepts the proxy origin and name, sets the cookie Secure, and binds the session to the forwarded client', async () => {
    const answer = await signIn(proxied.url, {
      headers: viaProxy('192.0.2.7', { origin: publicOrigin }),
    });
    expect(answer.status).toBe(303);
    expect(answer.header('set-cookie')).toMatch(
      /^soar_console_carol_8091=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
    );
    const cookie = pairOf(answer);
    const as = (client: string) =>
      call(proxied.url, '/api/session', { headers: viaProxy(client, { cookie, origin: publicOrigin }) });
    expect((await as('192.0.2.7')).status).toBe(200);
    // A browser may send its own X-Forwarded-For: the proxy's entry is the last one, and that one counts.
    expect((await as('203.0.113.9, 192.0.2.7')).status).toBe(200);
    expect((await as('192.0.2.8')).status).toBe(401);
    expect((await as('192.0.2.7, 192.0.2.8')).status).toBe(401);
  });

  it('still refuses any other origin; a console without it refuses the proxy origin', async () => {
    const evil = await call(proxied.url, '/api/session', {
      headers: viaProxy('192.0.2.7', { origin: 'https://evil.example' }),
    });
    expect([evil.status, JSON.parse(evil.body).error.code]).toEqual([403, 'origin_not_allowed']);
    const elsewhere = await call(alice.url, '/login', {
      method: 'POST',
      headers: { ...FORM, origin: 'https://lab.example.org:8089' },
      body: new URLSearchParams({ secret: SECRET }).toString(),
    });
    expect([elsewhere.status, JSON.parse(elsewhere.body).error.code]).toEqual([403, 'origin_not_allowed']);
  });

  it.each([
    ['http://lab.example.org', '"http://lab.example.org"'],
    ['https://lab.example.org/console', '"https://lab.example.org/console"'],
    ['https://lab.example.org:8443', '"https://lab.example.org:8443"'],
  ])('refuses LAB_PUBLIC_ORIGIN=%s in one line, exit 2', async (origin, shown) => {
    const proc = spawnNode('app/console/main.ts', [], {
      CONSOLE_PORT: '0',
      CONSOLE_SECRET: SECRET,
      LAB_PUBLIC_ORIGIN: origin,
    });
    expect((await proc.exited).code).toBe(2);
    expect(proc.stderr()).toBe(
      `console: invalid LAB_PUBLIC_ORIGIN ${shown}: must be an https:// origin without a port or a path (e.g. https://lab.example.org)\n`,
    );
  });

  it('refuses LAB_PUBLIC_ORIGIN without the lab secret: a proxied console is published', () => {
    expect(() => loadConsoleConfig({ LAB_PUBLIC_ORIGIN: 'https://lab.example.org' })).toThrow(
      'invalid LAB_PUBLIC_ORIGIN "https://lab.example.org": needs CONSOLE_SECRET too: a console behind a proxy is published beyond loopback',
    );
  });
});
