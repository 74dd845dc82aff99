/**
 * The rules the lab's two browser apps (the console, the class board) apply to every request first,
 * written once; each guard adds its own methods and paths. A browser app on loopback is what DNS
 * rebinding and cross-site requests aim at, so: a Host the app does not serve is refused (rebinding sends
 * the attacker's name); a request from another site is refused unless it opens a page; an Origin, when
 * sent, must be the app's own (or the TLS proxy's in front of it); a strict CSP on every answer. With a
 * secret, nothing but the sign-in page, its script and style is served without a session, the secret
 * reaches the app only in the form's body, and a session holds only from the address that signed in.
 */
import type { Context, MiddlewareHandler, Next } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { hostName } from './host-header.js';

/** The names every browser app answers besides the ones it is published on. */
export const LOOPBACK_NAMES = ['127.0.0.1', '[::1]', 'localhost'] as const;

const POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
];
export const PAGE_CONTENT_SECURITY_POLICY = [...POLICY, "form-action 'none'"].join('; ');
/** The sign-in page alone may submit a form, to its own origin. */
export const LOGIN_CONTENT_SECURITY_POLICY = [...POLICY, "form-action 'self'"].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

/** The longest sign-in body read: a form with one field. */
const LOGIN_BODY_LIMIT = 2048;
/** A wrong secret is answered this late: guessing over the network stays slow. */
const WRONG_SECRET_DELAY_MS = 400;

export const refuse = (
  c: Context,
  status: 400 | 401 | 403 | 404 | 405 | 413 | 415 | 421,
  code: string,
  message: string,
) => c.json({ error: { code, message } }, status);

/** The CSP (the sign-in page's own on /login) and the other security headers, on the answer as it is. */
export function secureAnswer(c: Context): void {
  const login = c.req.path === '/login';
  c.res.headers.set(
    'content-security-policy',
    login ? LOGIN_CONTENT_SECURITY_POLICY : PAGE_CONTENT_SECURITY_POLICY,
  );
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(name, value);
  // Under no-referrer a browser posts the form with `Origin: null`, which the origin rule refuses;
  // same-origin still tells no other site where the app is.
  if (login) c.res.headers.set('referrer-policy', 'same-origin');
}

/**
 * The refusal of a request that comes from elsewhere: a Host not in `names` (421, naming the app), a
 * Sec-Fetch-Site other than the app's own, or an Origin that is neither its own nor one of `origins`
 * (the https:// origin a TLS proxy serves it on) (403). Undefined: it may go on.
 */
export function refuseForeign(
  c: Context,
  names: ReadonlySet<string>,
  app: string,
  origins: ReadonlySet<string> = new Set(),
): Response | undefined {
  const host = c.req.header('host');
  if (host === undefined || !names.has(hostName(host))) {
    return refuse(c, 421, 'host_not_allowed', `The ${app} does not answer for this Host.`);
  }
  const site = c.req.header('sec-fetch-site');
  // A link from elsewhere (the n8n editor, the docs) may open a page: a top-level navigation, whose
  // answer only the user sees (frame-ancestors 'none' keeps it out of frames).
  const navigation = c.req.method === 'GET' && c.req.header('sec-fetch-mode') === 'navigate';
  if (site !== undefined && site !== 'same-origin' && site !== 'none' && !navigation) {
    return refuse(c, 403, 'cross_site', 'Requests from other sites are refused.');
  }
  const origin = c.req.header('origin');
  if (origin !== undefined && origin !== `http://${host}` && !origins.has(origin)) {
    return refuse(c, 403, 'origin_not_allowed', 'Requests from another origin are refused.');
  }
  return undefined;
}

/**
 * A browser app's guard around its own rules (`inner`): a request from elsewhere refused first
 * (refuseForeign), and every answer, refusals included, secured (secureAnswer).
 */
export function browserGuard(
  names: ReadonlySet<string>,
  app: string,
  inner: (c: Context, next: Next) => Promise<void>,
  origins: ReadonlySet<string> = new Set(),
): MiddlewareHandler {
  return async (c, next) => {
    const foreign = refuseForeign(c, names, app, origins);
    if (foreign) c.res = foreign;
    else await inner(c, next);
    secureAnswer(c);
  };
}

/**
 * Sessions a secret opens, each bound to the client address that signed in (a cookie replayed from
 * another address is no session): the app decides how they are kept.
 */
export interface SecretSessions {
  /** Constant time whatever the length given. */
  matches(given: string): boolean;
  /** A new session's cookie value, for this client address. */
  open(client: string): string;
  valid(cookie: string | undefined, client: string): boolean;
}

/** How an app with a secret signs a browser in. */
export interface SignIn {
  sessions: SecretSessions;
  /** The cookie's name: the app's own on this host (cookies are not kept apart by port). */
  cookie: string;
  ttlSeconds: number;
  /** Served through a TLS proxy (LAB_PUBLIC_ORIGIN): the cookie is `Secure`. */
  secure: boolean;
  /** The client address a session is bound to (client-address.ts: the peer, or the proxy's word). */
  client(c: Context): string;
  /** How a refusal names the form: `login form`, `sign-in form`. */
  form: string;
  /** The 401's message to a request without a session that is not a page. */
  required: string;
  css: string;
  script(): string | Promise<string>;
  page(failed: boolean): string | Promise<string>;
  /** Paths served without a session besides /login and its files. */
  open?: readonly string[];
}

/**
 * With a secret: the sign-in page, its style and script, the form's POST, and a page asked for without a
 * session sent to the form; any other request without a session is refused. Undefined: it may go on.
 */
export async function sessionGate(c: Context, signIn: SignIn): Promise<Response | undefined> {
  const path = c.req.path;
  if (path === '/login.css') return c.body(signIn.css, 200, { 'content-type': 'text/css; charset=utf-8' });
  if (path === '/login.js') {
    return c.body(await signIn.script(), 200, { 'content-type': 'text/javascript; charset=utf-8' });
  }
  if (path === '/login') {
    return c.req.method === 'POST' ? await postSignIn(c, signIn) : await c.html(signIn.page(false));
  }
  if (signIn.open?.includes(path) || signIn.sessions.valid(getCookie(c, signIn.cookie), signIn.client(c)))
    return undefined;
  return wantsPage(c) ? c.redirect('/login', 303) : refuse(c, 401, 'login_required', signIn.required);
}

/** A browser asking for a page (not a script, a stylesheet or the API) is sent to the sign-in form. */
function wantsPage(c: Context): boolean {
  if (c.req.method !== 'GET') return false;
  const dest = c.req.header('sec-fetch-dest');
  if (dest !== undefined) return dest === 'document';
  return (c.req.header('accept') ?? '').includes('text/html');
}

/** POST /login: a form with `secret`; a session cookie and the app on success, the form again if not. */
async function postSignIn(c: Context, signIn: SignIn): Promise<Response> {
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(c.req.header('content-type') ?? ''))
    return refuse(c, 415, 'form_only', `Send the ${signIn.form} (application/x-www-form-urlencoded).`);
  const length = Number(c.req.header('content-length') ?? 'NaN');
  if (!Number.isInteger(length) || length > LOGIN_BODY_LIMIT)
    return refuse(c, 413, 'login_too_large', `The ${signIn.form} is one short field.`);
  const secret = new URLSearchParams(await c.req.text()).get('secret') ?? '';
  if (!signIn.sessions.matches(secret)) {
    await new Promise((resolve) => setTimeout(resolve, WRONG_SECRET_DELAY_MS));
    return c.html(signIn.page(true), 401);
  }
  setCookie(c, signIn.cookie, signIn.sessions.open(signIn.client(c)), {
    httpOnly: true,
    sameSite: 'Strict',
    path: '/',
    maxAge: signIn.ttlSeconds,
    ...(signIn.secure ? { secure: true } : {}),
  });
  return c.redirect('/', 303);
}
