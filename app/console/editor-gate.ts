/**
 * The editor gate: n8n's editor and webhooks reach the trainee's browser through the console's container,
 * a TCP pass-through from the published editor port to n8n. n8n runs the trainee's workflows, so it sits
 * on internal networks only, and Docker publishes no port from an internal network. Bytes pass unread
 * both ways (HTTP, n8n's push connection, a proxy's TLS alike); each side's end is passed on to the other.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { pipeline } from 'node:stream';
import type { AddressList } from '../service-kit/cidr.js';

export interface EditorGateOptions {
  host: string;
  port: number;
  /** Where n8n answers (N8N_URL): its host and port. */
  target: { host: string; port: number };
  /** Peers closed at once, before a byte passes (the network where n8n runs workflows). */
  refused: AddressList | null;
}

/** The host and port of an http(s) URL, the scheme's port when it names none. */
export function gateTarget(url: string): { host: string; port: number } {
  const u = new URL(url);
  const port = u.port === '' ? (u.protocol === 'https:' ? 443 : 80) : Number(u.port);
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port };
}

/**
 * Closes every connection from a refused address as it is accepted, on any server (the gate, the
 * console's own HTTP server): a workflow running in n8n shares a network with the console and must not
 * reach it.
 */
export function refuseClients(server: Server, refused: AddressList | null): void {
  if (refused === null) return;
  server.prependListener('connection', (socket: Socket) => {
    if (refused.includes(socket.remoteAddress)) socket.destroy();
  });
}

/** Starts the gate; `listening` and `error` are the returned server's. */
export function startEditorGate(options: EditorGateOptions): Server {
  // Half-open allowed on both sides: a peer's end is passed on, and the answer still comes back after it.
  const server = createServer({ allowHalfOpen: true }, (client) => {
    if (client.destroyed) return;
    const upstream = createConnection({ ...options.target, allowHalfOpen: true });
    // A browser's push connection may stay idle for long: keep-alive finds a peer gone without a FIN.
    client.setKeepAlive(true, 30_000);
    upstream.setKeepAlive(true, 30_000);
    // Either side's error or reset closes both; an end is passed on, so what was sent still arrives.
    pipeline(client, upstream, client, () => {
      client.destroy();
      upstream.destroy();
    });
  });
  refuseClients(server, options.refused);
  server.listen(options.port, options.host);
  return server;
}
