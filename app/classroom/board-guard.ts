/**
 * What every request to the class board passes first: the browser apps' rules
 * (app/service-kit/browser-guard.ts: Host, Sec-Fetch-Site, Origin, CSP, the sign-in with the board's
 * secret), then the board's own: it only reads, so GET and HEAD, and POST for the sign-in form; no CORS.
 * With a secret (a board published beyond loopback), nothing but the sign-in page, its script and style,
 * and /health is served without a session.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { html } from 'hono/html';
import {
  LOOPBACK_NAMES,
  refuse,
  refuseForeign,
  type SignIn,
  secureAnswer,
  sessionGate,
} from '../service-kit/browser-guard.js';
import { LOGIN_JS } from './board-client.js';

export const BOARD_SESSION_COOKIE = 'class_board_session';
/** A teaching day. */
export const BOARD_SESSION_TTL_SECONDS = 12 * 60 * 60;

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
  const names = new Set<string>([...LOOPBACK_NAMES, ...options.allowedHosts.map((h) => h.toLowerCase())]);
  const { sessions } = options;
  const signIn: SignIn | undefined = sessions && {
    sessions,
    cookie: BOARD_SESSION_COOKIE,
    ttlSeconds: BOARD_SESSION_TTL_SECONDS,
    form: 'sign-in form',
    required: 'Sign in with the board secret first (/login).',
    css: LOGIN_CSS,
    script: () => LOGIN_JS,
    page: renderBoardLogin,
    open: ['/health'],
  };
  return async function classBoardGuard(c, next) {
    await guarded(c, next);
    secureAnswer(c);
  };

  async function guarded(c: Context, next: () => Promise<void>): Promise<void> {
    const foreign = refuseForeign(c, names, 'class board');
    if (foreign) {
      c.res = foreign;
      return;
    }
    const method = c.req.method;
    const login = c.req.path === '/login';
    if (method !== 'GET' && method !== 'HEAD' && !(method === 'POST' && login && signIn !== undefined)) {
      c.res = refuse(c, 405, 'method_not_allowed', 'The class board only reads: GET (and the sign-in form).');
      c.res.headers.set('allow', 'GET, HEAD');
      return;
    }
    if (signIn === undefined) {
      // No secret: a sign-in link still lands on the board.
      if (login) c.res = c.redirect('/', 303);
      else await next();
      return;
    }
    const gate = await sessionGate(c, signIn);
    if (gate) {
      c.res = gate;
      return;
    }
    await next();
  }
}
