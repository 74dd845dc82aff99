/**
 * The editor gate: n8n's editor and webhooks reach the trainee's browser through the console's container,
 * a TCP pass-through from the published editor port to n8n. n8n runs the trainee's workflows, so it sits
 * on internal networks only, and Docker publishes no port from an internal network. Bytes pass unread
 * both ways (HTTP, n8n's push connection, a proxy's TLS alike); each side's end is passed on to the other.
 *
 * It runs in the console's own process, so what it holds the console pays for (memory, descriptors): it
 * holds a bounded number of connections, in all and from one client address, and none for long without a
 * reason (GateLimits). A connection over a cap is closed as it is accepted and costs nothing kept.
 */
import { createConnection, createServer, type LookupFunction, type Server, type Socket } from 'node:net';
import { pipeline } from 'node:stream';
import { createServer as createTlsServer, type TlsOptions } from 'node:tls';
import type { AddressList } from '../service-kit/cidr.js';

/** The gate's bounds. null: that bound is off (the tests' controls; the console sets every one). */
export interface GateLimits {
  /** Connections held at once, every client together. */
  maxConnections: number | null;
  /** Connections held at once from one client address. */
  maxPerClient: number | null;
  /** A connection whose client has sent nothing by then is closed. */
  firstByteMs: number | null;
  /** A connection with no byte either way for this long is closed. */
  idleMs: number | null;
  /** Once either side has ended, both are closed this long after: time enough for the answer to an end. */
  endGraceMs: number | null;
  /**
   * A connection's whole life: closed this long after it was accepted, however busy. A byte every few
   * minutes keeps a connection from the idle bound, not from this one; n8n's editor opens its push
   * connection again by itself when it is closed.
   */
  maxLifeMs: number | null;
}

export interface EditorGateOptions {
  host: string;
  port: number;
  /** Where n8n answers (N8N_URL): its host and port. */
  target: { host: string; port: number };
  /** Peers closed at once, before a byte passes (the network where n8n runs workflows). */
  refused: AddressList | null;
  limits: GateLimits;
  /** How n8n's name is resolved (N8N_ALLOWED_SUBNET's guard, app/n8n/subnet-guard.ts); the system's if absent. */
  lookup?: LookupFunction | undefined;
  /**
   * The classroom's certificate and key (PEM): the gate then speaks TLS to browsers (Node's own `tls`) and
   * passes the decrypted bytes to n8n; a client that does not open TLS gets nothing of n8n's.
   */
  tls?: Pick<TlsOptions, 'cert' | 'key'> | undefined;
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

const reached = (count: number, cap: number | null) => cap !== null && count >= cap;

/** Starts the gate; `listening` and `error` are the returned server's. */
export function startEditorGate(options: EditorGateOptions): Server {
  const { limits } = options;
  // Only connections held are counted: a refused one is gone before anything else could count it.
  let held = 0;
  const perClient = new Map<string, number>();
  // Half-open allowed on both sides: a peer's end is passed on, and the answer still comes back after it.
  const accept = (client: Socket) => {
    if (client.destroyed) return;
    const address = client.remoteAddress ?? '';
    const mine = perClient.get(address) ?? 0;
    if (reached(held, limits.maxConnections) || reached(mine, limits.maxPerClient)) {
      client.destroy();
      return;
    }
    held += 1;
    perClient.set(address, mine + 1);
    client.once('close', () => {
      held -= 1;
      const left = (perClient.get(address) ?? 1) - 1;
      if (left > 0) perClient.set(address, left);
      else perClient.delete(address);
    });
    passThrough(client, options);
  };
  const server = options.tls
    ? // The handshake is bounded like a first byte; a client in its handshake is counted by the server's own cap.
      createTlsServer(
        { ...options.tls, allowHalfOpen: true, handshakeTimeout: limits.firstByteMs ?? 120_000 },
        accept,
      )
    : createServer({ allowHalfOpen: true }, accept);
  if (options.tls && limits.maxConnections !== null) server.maxConnections = limits.maxConnections;
  // A TLS client gone in its handshake (a plain HTTP request, a scan) is no error of the gate's.
  server.on('tlsClientError', (_err: Error, socket: Socket) => socket.destroy());
  refuseClients(server, options.refused);
  server.listen(options.port, options.host);
  return server;
}

/** One client's connection to n8n, both ways, within the time limits. */
function passThrough(client: Socket, { target, limits, lookup }: EditorGateOptions): void {
  const upstream = createConnection({ ...target, allowHalfOpen: true, ...(lookup ? { lookup } : {}) });
  const timers: NodeJS.Timeout[] = [];
  const close = () => {
    for (const timer of timers) clearTimeout(timer);
    client.destroy();
    upstream.destroy();
  };
  // A browser's push connection may stay idle for long: keep-alive finds a peer gone without a FIN.
  client.setKeepAlive(true, 30_000);
  upstream.setKeepAlive(true, 30_000);
  // Either side's error or reset closes both; an end is passed on, so what was sent still arrives.
  pipeline(client, upstream, client, close);
  const { firstByteMs, idleMs, endGraceMs, maxLifeMs } = limits;
  if (maxLifeMs !== null) timers.push(setTimeout(close, maxLifeMs));
  // A browser sends its request as soon as it has connected; a connection that says nothing is no browser's.
  if (firstByteMs !== null) timers.push(setTimeout(() => client.bytesRead === 0 && close(), firstByteMs));
  // The client's socket is written to whenever n8n sends, so its timeout counts quiet both ways. n8n's push
  // connection is never quiet for long: see EDITOR_GATE_IDLE_SECONDS (./config.ts).
  if (idleMs !== null) client.setTimeout(idleMs, close);
  if (endGraceMs !== null) {
    let grace: NodeJS.Timeout | undefined;
    const ended = () => {
      if (grace !== undefined) return;
      grace = setTimeout(close, endGraceMs);
      timers.push(grace);
    };
    client.once('end', ended);
    upstream.once('end', ended);
  }
}
