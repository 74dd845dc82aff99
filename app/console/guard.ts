/**
 * What every request to the console passes first: the browser apps' rules (app/service-kit/browser-guard.ts:
 * Host, Sec-Fetch-Site, Origin, CSP, the sign-in with the lab's secret), then the console's own: a
 * state-changing request must be a JSON POST carrying the page's token; no CORS at all (a preflight gets
 * 405). With a secret, nothing but the login form, its stylesheet and its script (which signs in with a
 * sign-in link's fragment) is served without a session, and a session holds only from the address that
 * signed in. Behind a TLS proxy (the sessions' public origin) the proxy's origin and name are the
 * console's own too, and the client address is the one the proxy forwards. Served over TLS by itself
 * (CONSOLE_TLS_CERT), its https:// origins are its own and the cookie is `Secure`.
 */
import type { Context, MiddlewareHandler } from 'hono';
import {
  browserGuard,
  LOOPBACK_NAMES,
  refuse,
  type SignIn,
  sessionGate,
} from '../service-kit/browser-guard.js';
import { forwardedAddress, peerAddress } from '../service-kit/client-address.js';
import { hostName } from '../service-kit/host-header.js';
import { SIGN_IN_CSS } from '../service-kit/sign-in-page.js';
import { clientScript } from './assets.js';
import { renderLogin } from './login-page.js';
import { SESSION_TTL_SECONDS, type Sessions } from './session.js';

export interface GuardOptions {
  allowedHosts: readonly string[];
  token: string;
  sessions: Sessions | undefined;
}

export function guard(options: GuardOptions): MiddlewareHandler {
  const { sessions } = options;
  const proxied = sessions?.publicOrigin;
  const names = new Set<string>([...LOOPBACK_NAMES, ...options.allowedHosts]);
  if (proxied !== undefined) names.add(hostName(new URL(proxied).host));
  const signIn: SignIn | undefined = sessions && {
    sessions,
    cookie: sessions.cookie,
    ttlSeconds: SESSION_TTL_SECONDS,
    secure: proxied !== undefined || sessions.tlsOrigins !== undefined,
    client: proxied === undefined ? peerAddress : forwardedAddress,
    form: 'login form',
    required: 'Sign in with the lab secret first (/login).',
    css: SIGN_IN_CSS,
    script: () => clientScript('login'),
    page: renderLogin,
  };
  const origins = new Set([...(proxied === undefined ? [] : [proxied]), ...(sessions?.tlsOrigins ?? [])]);
  return browserGuard(names, 'console', guarded, origins);

  async function guarded(c: Context, next: () => Promise<void>): Promise<void> {
    const method = c.req.method;
    if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') {
      c.res = refuse(c, 405, 'method_not_allowed', 'Only GET and POST; no CORS.');
      c.res.headers.set('allow', 'GET, HEAD, POST');
      return;
    }
    const gate = signIn && (await sessionGate(c, signIn));
    if (gate) {
      c.res = gate;
      return;
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
