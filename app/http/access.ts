import { isIP } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../errors.js';
import type { AddressAllowlist } from './cidr.js';
import type { AppEnv } from './env.js';

export interface AccessPolicy {
  /** null: any source address (the lab network restricts who can connect). */
  allowedClients: AddressAllowlist | null;
  /** Names accepted in Host besides IP literals and localhost; `*` accepts any. */
  allowedHosts: readonly string[];
}

/**
 * Defense in depth for an API without authentication: a source-address allowlist, a Host allowlist
 * (a browser tricked by DNS rebinding sends the attacker's name as Host, never an IP literal we serve),
 * and no browser requests at all (anything carrying Origin). Workflow engines and curl send no Origin.
 * An HTTP/1.1 request without Host is refused here (Node's own refusal is a bare, empty 400).
 */
export function accessControl(policy: AccessPolicy): MiddlewareHandler<AppEnv> {
  const anyHost = policy.allowedHosts.includes('*');
  const hosts = new Set(['localhost', ...policy.allowedHosts.map((h) => h.toLowerCase())]);
  return async function accessControlMiddleware(c, next) {
    if (policy.allowedClients && !policy.allowedClients.allows(c.env?.incoming?.socket.remoteAddress)) {
      throw new ApiError('client_not_allowed', 'This client address is not allowed to use the lab API.');
    }
    if (c.req.header('origin') !== undefined) {
      throw new ApiError('origin_not_allowed', 'Requests from browsers (with an Origin header) are refused.');
    }
    const host = c.req.header('host');
    if (host === undefined && c.env?.incoming?.httpVersion === '1.1') {
      throw new ApiError('bad_request', 'An HTTP/1.1 request must carry a Host header.');
    }
    if (!anyHost && host !== undefined && !hostAllowed(host, hosts)) {
      throw new ApiError(
        'host_not_allowed',
        'The Host header names a host this service does not answer for.',
      );
    }
    await next();
  };
}

function hostAllowed(header: string, names: ReadonlySet<string>): boolean {
  let name = header.trim().toLowerCase();
  if (name.startsWith('[')) return isIP(name.slice(1, name.indexOf(']'))) === 6;
  const colon = name.lastIndexOf(':');
  if (colon !== -1) name = name.slice(0, colon);
  if (name.endsWith('.')) name = name.slice(0, -1);
  return isIP(name) === 4 || names.has(name);
}
