/**
 * What every request to the console passes first. A browser app on loopback is what DNS rebinding and
 * cross-site requests aim at, so: a Host the console does not serve is refused (rebinding sends the
 * attacker's name); a state-changing request must be a same-origin JSON POST (Origin, when sent, equal to
 * the console's own; Sec-Fetch-Site not cross-site) carrying the page's token; no CORS at all (a preflight
 * gets 405); a strict CSP on every answer. With a secret, nothing but the login form, its stylesheet and
 * its script (which signs in with a sign-in link's fragment) is served without a session.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { hostName } from '../lab/host-header.js';
import { clientScript } from './assets.js';
import { LOGIN_CSS, renderLogin } from './login-page.js';
import { SESSION_COOKIE, SESSION_TTL_SECONDS, type Sessions } from './session.js';

const POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
];
export const CONTENT_SECURITY_POLICY = [...POLICY, "form-action 'none'"].join('; ');
/** The login page alone may submit a form, to its own origin. */
export const LOGIN_CONTENT_SECURITY_POLICY = [...POLICY, "form-action 'self'"].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

/** The longest login body read: a form with one field. */
const LOGIN_BODY_LIMIT = 2048;
/** A wrong secret is answered this late: guessing over the network stays slow. */
const WRONG_SECRET_DELAY_MS = 400;

export interface GuardOptions {
  allowedHosts: readonly string[];
  token: string;
  sessions: Sessions | undefined;
}

export const refuse = (
  c: Context,
  status: 400 | 401 | 403 | 404 | 405 | 413 | 415 | 421,
  code: string,
  message: string,
) => c.json({ error: { code, message } }, status);

export function guard(options: GuardOptions): MiddlewareHandler {
  const names = new Set(['127.0.0.1', '[::1]', 'localhost', ...options.allowedHosts]);
  const { sessions } = options;
  return async function consoleGuard(c, next) {
    await guarded(c, next);
    const login = c.req.path === '/login';
    c.res.headers.set(
      'content-security-policy',
      login ? LOGIN_CONTENT_SECURITY_POLICY : CONTENT_SECURITY_POLICY,
    );
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(name, value);
    // Under no-referrer a browser sends `Origin: null` with the form's POST, which the origin rule
    // refuses; same-origin still tells no other site where the console is.
    if (login) c.res.headers.set('referrer-policy', 'same-origin');
  };

  async function guarded(c: Context, next: () => Promise<void>): Promise<void> {
    const host = c.req.header('host');
    if (host === undefined || !names.has(hostName(host))) {
      c.res = refuse(c, 421, 'host_not_allowed', 'The console does not answer for this Host.');
      return;
    }
    const site = c.req.header('sec-fetch-site');
    // A link from elsewhere (the n8n editor, the docs) may open the page: a top-level navigation, whose
    // answer only the user sees (frame-ancestors 'none' keeps it out of frames).
    const navigation = c.req.method === 'GET' && c.req.header('sec-fetch-mode') === 'navigate';
    if (site !== undefined && site !== 'same-origin' && site !== 'none' && !navigation) {
      c.res = refuse(c, 403, 'cross_site', 'Requests from other sites are refused.');
      return;
    }
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== `http://${host}`) {
      c.res = refuse(c, 403, 'origin_not_allowed', 'Requests from another origin are refused.');
      return;
    }
    const method = c.req.method;
    if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') {
      c.res = refuse(c, 405, 'method_not_allowed', 'Only GET and POST; no CORS.');
      c.res.headers.set('allow', 'GET, HEAD, POST');
      return;
    }
    if (sessions !== undefined) {
      if (c.req.path === '/login.css') {
        c.res = c.body(LOGIN_CSS, 200, { 'content-type': 'text/css; charset=utf-8' });
        return;
      }
      if (c.req.path === '/login.js') {
        c.res = c.body(await clientScript('login'), 200, {
          'content-type': 'text/javascript; charset=utf-8',
        });
        return;
      }
      if (c.req.path === '/login') {
        c.res = method === 'POST' ? await login(c, sessions) : await c.html(renderLogin(false));
        return;
      }
      if (!sessions.valid(getCookie(c, SESSION_COOKIE))) {
        c.res = wantsPage(c)
          ? c.redirect('/login', 303)
          : refuse(c, 401, 'login_required', 'Sign in with the lab secret first (/login).');
        return;
      }
    }
    if (method === 'POST') {
      if (!/^application\/json\s*(;|$)/i.test(c.req.header('content-type') ?? '')) {
        c.res = refuse(c, 415, 'json_only', 'Send a JSON body (content-type: application/json).');
        return;
      }
      if (c.req.header('x-console-token') !== options.token) {
        c.res = refuse(c, 403, 'token_missing', 'Missing or wrong x-console-token (GET /api/session).');
        return;
      }
    }
    await next();
  }
}

/** A browser asking for a page (not a script, a stylesheet or the API) is sent to the login form. */
function wantsPage(c: Context): boolean {
  if (c.req.method !== 'GET') return false;
  const dest = c.req.header('sec-fetch-dest');
  if (dest !== undefined) return dest === 'document';
  return (c.req.header('accept') ?? '').includes('text/html');
}

/** POST /login: a form with `secret`; a session cookie and the console on success, the form again if not. */
async function login(c: Context, sessions: Sessions): Promise<Response> {
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(c.req.header('content-type') ?? ''))
    return refuse(c, 415, 'form_only', 'Send the login form (application/x-www-form-urlencoded).');
  const length = Number(c.req.header('content-length') ?? 'NaN');
  if (!Number.isInteger(length) || length > LOGIN_BODY_LIMIT)
    return refuse(c, 413, 'login_too_large', 'The login form is one short field.');
  const secret = new URLSearchParams(await c.req.text()).get('secret') ?? '';
  if (!sessions.matches(secret)) {
    await new Promise((resolve) => setTimeout(resolve, WRONG_SECRET_DELAY_MS));
    return c.html(renderLogin(true), 401);
  }
  setCookie(c, SESSION_COOKIE, sessions.open(), {
    httpOnly: true,
    sameSite: 'Strict',
    path: '/',
    maxAge: SESSION_TTL_SECONDS,
  });
  return c.redirect('/', 303);
}
