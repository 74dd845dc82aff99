/**
 * What every request to the class board passes first: the browser apps' rules
 * (app/service-kit/browser-guard.ts: Host, Sec-Fetch-Site, Origin, CSP, the sign-in with the board's
 * secret), then the board's own: it only reads, so GET and HEAD, and POST for the sign-in form; no CORS.
 * With a secret (a board published beyond loopback), nothing but the sign-in page, its script and style,
 * and /health is served without a session, and a session holds only from the address that signed in.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import {
  browserGuard,
  LOOPBACK_NAMES,
  refuse,
  type SignIn,
  sessionGate,
} from '../service-kit/browser-guard.js';
import { peerAddress } from '../service-kit/client-address.js';
import { SIGN_IN_CSS, signInPage } from '../service-kit/sign-in-page.js';
import { LOGIN_JS } from './board-client.js';

/** The board's own name on the host its labs share: no lab's console reads or overwrites it. */
export const BOARD_SESSION_COOKIE = 'soar_class_board';
/** A teaching day. */
export const BOARD_SESSION_TTL_SECONDS = 12 * 60 * 60;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * Sessions without server state: the cookie is its expiry and an HMAC of it and the client address that
 * signed in, under a key derived from the secret, so a board started again (board.sh restarts it when a
 * lab's reports volume comes or goes) keeps its signed-in tabs, a new secret ends them all, and the
 * cookie replayed from another address is no session.
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

  #mac(expires: string, client: string): Buffer {
    return createHmac('sha256', this.#key).update(`${expires} ${client}`).digest();
  }

  /** Constant time whatever the length given: both sides are hashed to 32 bytes first. */
  matches(given: string): boolean {
    return timingSafeEqual(sha256(given), this.#digest);
  }

  open(client: string): string {
    const expires = String(Math.floor(this.#now() / 1000) + BOARD_SESSION_TTL_SECONDS);
    return `${expires}.${this.#mac(expires, client).toString('base64url')}`;
  }

  valid(cookie: string | undefined, client: string): boolean {
    const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(cookie ?? '');
    if (match === null) return false;
    const [, expires = '', mac = ''] = match;
    const given = Buffer.from(mac, 'base64url');
    return (
      given.length === 32 &&
      timingSafeEqual(given, this.#mac(expires, client)) &&
      Number(expires) * 1000 > this.#now()
    );
  }
}

/** The board's sign-in page: app/service-kit/sign-in-page.ts in the board's words. */
export const renderBoardLogin = signInPage({
  app: 'SOAR lab class board',
  intro:
    'The class board asks for its secret: open the sign-in link make class-board printed, or type the secret (CLASS_BOARD_SECRET in labs/class-board.env).',
  label: 'Board secret',
  wrong: "That is not the board's secret.",
});

export interface BoardGuardOptions {
  /** Host names served besides 127.0.0.1, [::1] and localhost: the address it is published on. */
  allowedHosts: readonly string[];
  /** Set when the board has a secret. */
  sessions: BoardSessions | undefined;
  /** Served over TLS by itself: the https:// origins it answers on (accepted as Origin; the cookie `Secure`). */
  tlsOrigins?: readonly string[] | undefined;
}

export function boardGuard(options: BoardGuardOptions): MiddlewareHandler {
  const names = new Set<string>([...LOOPBACK_NAMES, ...options.allowedHosts.map((h) => h.toLowerCase())]);
  const { sessions } = options;
  const signIn: SignIn | undefined = sessions && {
    sessions,
    cookie: BOARD_SESSION_COOKIE,
    ttlSeconds: BOARD_SESSION_TTL_SECONDS,
    // The board is published on the classroom network directly (board.sh), never behind a proxy: its
    // cookie is `Secure` when it speaks TLS itself.
    secure: options.tlsOrigins !== undefined,
    client: peerAddress,
    form: 'sign-in form',
    required: 'Sign in with the board secret first (/login).',
    css: SIGN_IN_CSS,
    script: () => LOGIN_JS,
    page: renderBoardLogin,
    // The class CA's certificate is public: a trainee fetches it before trusting the board's address.
    open: ['/health', '/class-ca.pem'],
  };
  return browserGuard(names, 'class board', guarded, new Set(options.tlsOrigins ?? []));

  async function guarded(c: Context, next: () => Promise<void>): Promise<void> {
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
