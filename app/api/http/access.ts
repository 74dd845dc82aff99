/** Who may call the mock API: the source-address and Host allowlists checked before any route. */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { AddressList } from '../../service-kit/cidr.js';
import { hostName } from '../../service-kit/host-header.js';
import { ApiError } from './errors.js';

export interface AccessPolicy {
  /** null: any source address (the lab network restricts who can connect). */
  allowedClients: AddressList | null;
  /** Names accepted in Host besides IP literals and localhost; `*` accepts any. */
  allowedHosts: readonly string[];
}

/** Throws the ApiError that refuses a request, or returns when it may go on. */
export type AccessCheck = (request: Request, incoming: IncomingMessage | undefined) => void;

/**
 * Defense in depth for an API without authentication: a source-address allowlist, a Host allowlist
 * (a browser tricked by DNS rebinding sends the attacker's name as Host, never an IP literal we serve),
 * and no browser requests at all (anything carrying Origin). Workflow engines and curl send no Origin.
 * An HTTP/1.1 request without Host is refused here (Node's own refusal is a bare, empty 400).
 *
 * With a socket, headers are read from Node's IncomingMessage (already parsed, lower-cased names,
 * surrounding whitespace trimmed); reading them through the Web Request is what `app.request()` has.
 */
export function accessCheck(policy: AccessPolicy): AccessCheck {
  const anyHost = policy.allowedHosts.includes('*');
  const hosts = new Set(['localhost', ...policy.allowedHosts.map((h) => h.toLowerCase())]);
  const clients = policy.allowedClients;
  return function checkAccess(request, incoming) {
    if (clients && !clients.includes(incoming?.socket.remoteAddress)) {
      throw new ApiError('client_not_allowed', 'This client address is not allowed to use the lab API.');
    }
    let origin: string | undefined;
    let host: string | undefined;
    if (incoming) {
      origin = incoming.headers.origin;
      host = incoming.headers.host;
    } else {
      origin = request.headers.get('origin') ?? undefined;
      host = request.headers.get('host') ?? undefined;
    }
    if (origin !== undefined) {
      throw new ApiError('origin_not_allowed', 'Requests from browsers (with an Origin header) are refused.');
    }
    if (host === undefined && incoming?.httpVersion === '1.1') {
      throw new ApiError('bad_request', 'An HTTP/1.1 request must carry a Host header.');
    }
    if (!anyHost && host !== undefined && !hostAllowed(host, hosts)) {
      throw new ApiError(
        'host_not_allowed',
        'The Host header names a host this service does not answer for.',
      );
    }
  };
}

function hostAllowed(header: string, names: ReadonlySet<string>): boolean {
  const name = hostName(header);
  if (name.startsWith('[')) return isIP(name.slice(1, -1)) === 6;
  return isIP(name) === 4 || names.has(name);
}
