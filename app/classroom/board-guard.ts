/**
 * What every request to the class board passes first: the console's guard (app/console/guard.ts) for a
 * board that only reads. A Host it does not serve is refused (DNS rebinding); a request from another
 * site is refused unless it opens a page; GET and HEAD only, and POST for the sign-in form; no CORS; a
 * strict CSP on every answer. With a secret (a board published beyond loopback), nothing but the sign-in
 * page, its script and style is served without a session. Mirrored, not imported: the classroom room
 * imports only the lab room.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { html } from 'hono/html';
import { hostName } from '../lab/host-header.js';
import { LOGIN_JS } from './board-client.js';

export const BOARD_SESSION_COOKIE = 'class_board_session';
/** A teaching day. */
export const BOARD_SESSION_TTL_SECONDS = 12 * 60 * 60;
const WRONG_SECRET_DELAY_MS = 400;
const LOGIN_BODY_LIMIT = 2048;

const POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
];
export const BOARD_CSP = [...POLICY, "form-action 'none'"].join('; ');
const LOGIN_CSP = [...POLICY, "form-action 'self'"].join('; ');

const HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * Sessions without server state: the cookie is its expiry and an HMAC of it under a key derived from the
 * secret, so a board started again (board.sh restarts it when a lab's reports volume comes or goes) keeps
 * its signed-in tabs, and a new secret ends them all.
 */
export class BoardSessions {
  readonly #digest: Buffer;
  readonly #key: Buffer;
  readonly #now: () => number;

  constructor(secret: string, now: () => number = Date.now) {
    this.#digest = sha256(secret);
    this.#key = createHmac('sha256', this.#digest).update('soar-lab class board session').digest();
    this.#now = now;
  }

  #mac(expires: string): Buffer {
    return createHmac('sha256', this.#key).update(expires).digest();
  }

  /** Constant time whatever the length given: both sides are hashed to 32 bytes first. */
  matches(given: string): boolean {
    return timingSafeEqual(sha256(given), this.#digest);
  }

  open(): string {
    const expires = String(Math.floor(this.#now() / 1000) + BOARD_SESSION_TTL_SECONDS);
    return `${expires}.${this.#mac(expires).toString('base64url')}`;
  }

  valid(cookie: string | undefined): boolean {
    const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(cookie ?? '');
    if (match === null) return false;
    const [, expires = '', mac = ''] = match;
    const given = Buffer.from(mac, 'base64url');
    return (
      given.length === 32 &&
      timingSafeEqual(given, this.#mac(expires)) &&
      Number(expires) * 1000 > this.#now()
    );
  }
}

export const refuse = (
  c: Context,
  status: 401 | 403 | 404 | 405 | 413 | 415 | 421,
  code: string,
  message: string,
) => c.json({ error: { code, message } }, status);

export function renderBoardLogin(failed: boolean) {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>SOAR lab class board: sign in</title>
<link rel="stylesheet" href="/login.css">
<script src="/login.js" defer></script>
</head>
<body class="login">
<main class="login-card">
  <h1>SOAR lab class board</h1>
  <p>The class board asks for its secret: open the sign-in link make class-board printed, or type the secret (CLASS_BOARD_SECRET in labs/class-board.env).</p>
  <form id="login" method="post" action="/login">
    <label for="secret">Board secret</label>
    <input id="secret" name="secret" type="password" autocomplete="current-password" required autofocus>
    <button type="submit">Sign in</button>
  </form>
  <p id="login-status" class="login-status" aria-live="polite"></p>
  ${failed ? html`<p class="login-error" role="alert">That is not the board's secret.</p>` : ''}
</main>
</body>
</html>`;
}

const LOGIN_CSS = `body.login { margin: 0; min-height: 100vh; display: grid; place-items: center;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #16213a; color: #1c2430; }
.login-card { background: #fff; border-radius: 12px; padding: 28px 32px; width: min(400px, 90vw); }
.login-card h1 { font-size: 20px; margin: 0 0 8px; }
.login-card p { color: #65738a; margin: 0 0 16px; }
.login-card label { display: block; font-weight: 600; margin-bottom: 6px; }
.login-card input { box-sizing: border-box; width: 100%; font: inherit; padding: 8px 10px; border: 1px solid #c5cedc; border-radius: 6px; }
.login-card button { margin-top: 14px; width: 100%; font: inherit; padding: 8px; border: 0; border-radius: 6px; background: #2457c5; color: #fff; }
.login-status:empty { display: none; }
.login-error { color: #b4232c !important; font-weight: 600; margin: 14px 0 0 !important; }
`;

export interface BoardGuardOptions {
  /** Host names served besides 127.0.0.1, [::1] and localhost: the address it is published on. */
  allowedHosts: readonly string[];
  /** Set when the board has a secret. */
  sessions: BoardSessions | undefined;
}

export function boardGuard(options: BoardGuardOptions): MiddlewareHandler {
  const names = new Set([
    '127.0.0.1',
    '[::1]',
    'localhost',
    ...options.allowedHosts.map((h) => h.toLowerCase()),
  ]);
  const { sessions } = options;
  return async function classBoardGuard(c, next) {
    await guarded(c, next);
    const login = c.req.path === '/login';
    c.res.headers.set('content-security-policy', login ? LOGIN_CSP : BOARD_CSP);
    for (const [name, value] of Object.entries(HEADERS)) c.res.headers.set(name, value);
    // Under no-referrer a browser posts the form with `Origin: null`, which the origin rule refuses.
    if (login) c.res.headers.set('referrer-policy', 'same-origin');
  };

  async function guarded(c: Context, next: () => Promise<void>): Promise<void> {
    const host = c.req.header('host');
    if (host === undefined || !names.has(hostName(host))) {
      c.res = refuse(c, 421, 'host_not_allowed', 'The class board does not answer for this Host.');
      return;
    }
    const method = c.req.method;
    const site = c.req.header('sec-fetch-site');
    const navigation = method === 'GET' && c.req.header('sec-fetch-mode') === 'navigate';
    if (site !== undefined && site !== 'same-origin' && site !== 'none' && !navigation) {
      c.res = refuse(c, 403, 'cross_site', 'Requests from other sites are refused.');
      return;
    }
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== `http://${host}`) {
      c.res = refuse(c, 403, 'origin_not_allowed', 'Requests from another origin are refused.');
      return;
    }
    const login = c.req.path === '/login';
    if (method !== 'GET' && method !== 'HEAD' && !(method === 'POST' && login && sessions !== undefined)) {
      c.res = refuse(c, 405, 'method_not_allowed', 'The class board only reads: GET (and the sign-in form).');
      c.res.headers.set('allow', 'GET, HEAD');
      return;
    }
    if (sessions === undefined) {
      // No secret: a sign-in link still lands on the board.
      if (login) c.res = c.redirect('/', 303);
      else await next();
      return;
    }
    if (c.req.path === '/login.css') {
      c.res = c.body(LOGIN_CSS, 200, { 'content-type': 'text/css; charset=utf-8' });
      return;
    }
    if (c.req.path === '/login.js') {
      c.res = c.body(LOGIN_JS, 200, { 'content-type': 'text/javascript; charset=utf-8' });
      return;
    }
    if (login) {
      c.res = method === 'POST' ? await signIn(c, sessions) : await c.html(renderBoardLogin(false));
      return;
    }
    if (c.req.path !== '/health' && !sessions.valid(getCookie(c, BOARD_SESSION_COOKIE))) {
      c.res = wantsPage(c)
        ? c.redirect('/login', 303)
        : refuse(c, 401, 'login_required', 'Sign in with the board secret first (/login).');
      return;
    }
    await next();
  }
}

function wantsPage(c: Context): boolean {
  if (c.req.method !== 'GET') return false;
  const dest = c.req.header('sec-fetch-dest');
  if (dest !== undefined) return dest === 'document';
  return (c.req.header('accept') ?? '').includes('text/html');
}

async function signIn(c: Context, sessions: BoardSessions): Promise<Response> {
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(c.req.header('content-type') ?? ''))
    return refuse(c, 415, 'form_only', 'Send the sign-in form (application/x-www-form-urlencoded).');
  const length = Number(c.req.header('content-length') ?? 'NaN');
  if (!Number.isInteger(length) || length > LOGIN_BODY_LIMIT)
    return refuse(c, 413, 'login_too_large', 'The sign-in form is one short field.');
  const secret = new URLSearchParams(await c.req.text()).get('secret') ?? '';
  if (!sessions.matches(secret)) {
    await new Promise((resolve) => setTimeout(resolve, WRONG_SECRET_DELAY_MS));
    return c.html(renderBoardLogin(true), 401);
  }
  setCookie(c, BOARD_SESSION_COOKIE, sessions.open(), {
    httpOnly: true,
    sameSite: 'Strict',
    path: '/',
    maxAge: BOARD_SESSION_TTL_SECONDS,
  });
  return c.redirect('/', 303);
}
