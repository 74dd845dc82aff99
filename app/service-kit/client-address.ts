/**
 * The address a browser app's request came from, as a session is bound to it. A session cookie can be
 * stolen (on a shared host address every lab's ports receive every other lab's cookies, and n8n keeps a
 * webhook request's headers in its run data); the address a browser signed in from cannot be sent along
 * with it.
 */
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/** `::ffff:192.0.2.7` (IPv4 on a dual-stack socket) reads as `192.0.2.7`; case does not matter. */
export function normalizeAddress(address: string): string {
  const a = address.trim().toLowerCase();
  return a.startsWith('::ffff:') && a.includes('.') ? a.slice('::ffff:'.length) : a;
}

/**
 * The TCP peer's address. Behind Docker's port publishing a LAN browser's connection is forwarded by
 * NAT with its source kept; from the host itself (the userland proxy) every browser is the network's
 * gateway: one address, so the binding refuses nobody there. '' when the app runs without a socket
 * (`app.request` in a test).
 */
export function peerAddress(c: Context): string {
  try {
    return normalizeAddress(getConnInfo(c).remote.address ?? '');
  } catch {
    return '';
  }
}

/**
 * Behind a TLS proxy every peer is the proxy: the browser is the last X-Forwarded-For entry, the one
 * the proxy itself added (nginx's `$proxy_add_x_forwarded_for` and Caddy append or overwrite; a browser
 * can only forge the entries before it). Trusted only when nothing but the proxy reaches the app (the lab
 * published on loopback); without the header, the peer.
 */
export function forwardedAddress(c: Context): string {
  const entries = (c.req.header('x-forwarded-for') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const last = entries.at(-1);
  return last === undefined ? peerAddress(c) : normalizeAddress(last);
}
