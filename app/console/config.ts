/** The console's settings: environment over defaults, one line naming the variable on a bad value. */
import { z } from 'zod';
import { WebhookPathSchema } from '../driver/webhook-path.js';
import { LAB_NAME_PATTERN, REPORT_FILE } from '../lab-settings/names.js';
import { STARTERS_VALUES } from '../n8n/starter.js';
import { literalOutside, parseSubnet } from '../n8n/subnet-guard.js';
import { LOOPBACK_NAMES } from '../service-kit/browser-guard.js';
import { CidrListSchema } from '../service-kit/cidr.js';
import { parseEnvConfig } from '../service-kit/env-config.js';
import { PemCertificateSchema, PemKeySchema } from '../service-kit/pem.js';
import { PublicOriginSchema, publicOriginAt } from '../service-kit/public-origin.js';
import { RESPONSE_WEBHOOK_PATH } from '../workflow/constants.js';
import { CHECK_TIMEOUT_MS, DEFAULT_CHECKER } from './check-run.js';
import type { GateLimits } from './editor-gate.js';
import { type SessionSettings, sessionCookieName } from './session.js';

const port = z.coerce.number().int('must be a whole number').min(0).max(65535);
const httpUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
  .transform((u) => u.replace(/\/+$/, ''));
const count = z.coerce
  .number('must be a number')
  .int('must be a whole number')
  .min(1, 'must be 1 to 100000')
  .max(100_000, 'must be 1 to 100000');
const seconds = z.coerce
  .number('must be a number of seconds')
  .int('must be a whole number of seconds')
  .min(1, 'must be 1 to 86400 seconds')
  .max(24 * 3600, 'must be 1 to 86400 seconds');
const subnet = z.string().transform((text, ctx) => {
  try {
    return parseSubnet(text);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : String(err) });
    return z.NEVER;
  }
});
const list = z.string().transform((s) =>
  s
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter(Boolean),
);

export const ConsoleConfigSchema = z
  .object({
    host: z.string().min(1).default('127.0.0.1'),
    port: port.default(8088),
    /** The mock API over TCP (make run, make e2e set-ups). Ignored when mockApiSocket is set. */
    mockApiUrl: httpUrl.default('http://127.0.0.1:8081'),
    /** The mock API's Unix socket (the compose lab: the console has no network path to the mock API). */
    mockApiSocket: z.string().startsWith('/', 'must be an absolute path').optional(),
    /** Where the console itself reaches the workflow platform (compose: http://n8n:5678). */
    n8nUrl: httpUrl.default('http://127.0.0.1:5678'),
    /**
     * The workflow platform's public origin, the one its resume URLs carry (compose: http://127.0.0.1:5678).
     * Only resume URLs on this origin are posted to, rewritten onto n8nUrl. Defaults to n8nUrl.
     */
    n8nPublicUrl: httpUrl.optional(),
    /** n8n's public-API key: Reset then stops the unfinished workflow runs first (the compose lab). */
    n8nApiKey: z.string().min(1).optional(),
    /**
     * The editor gate's port (the compose lab: 5678, published as LAB_EDITOR_PORT): a TCP pass-through to
     * n8nUrl's host and port (./editor-gate.ts). Unset: no gate.
     */
    gatePort: port.optional(),
    /**
     * Addresses and networks closed at once on the console's port and the gate's: the network where n8n
     * runs the trainee's workflows (compose: n8n-front's subnet).
     */
    refusedClients: CidrListSchema,
    /**
     * The gate's caps (./editor-gate.ts): connections held at once, in all and from one client address. On
     * loopback every browser comes through docker-proxy from one address (the editor network's gateway),
     * so one client is the whole of a trainee's browser: up to 6 connections to a host, and a push
     * connection for each editor tab. 64 leaves room for a trainer's tunnel and tabs beside it.
     */
    gateMaxConnections: count.default(256),
    gateMaxPerClient: count.default(64),
    /** A browser sends its request as soon as it has connected: a connection silent this long is closed. */
    gateFirstByteSeconds: seconds.default(10),
    /**
     * A connection quiet both ways this long is closed. n8n's push connection (a WebSocket under
     * /rest/push) is never quiet for a minute: n8n 2.41.1 pings every push connection every 60 s
     * (packages/cli/src/push/abstract.push.ts: a WebSocket ping, ":ping" over SSE) and its editor sends a
     * heartbeat every 30 s (editor-ui, push-connection/useWebSocketClient.ts). 180 s is three of n8n's
     * pings, so a tab the browser throttles in the background keeps its push connection too.
     */
    gateIdleSeconds: seconds.default(180),
    /** Both sides are closed this long after either has ended: time for the answer to a request's end. */
    gateEndGraceSeconds: seconds.default(5),
    /**
     * A gate connection's whole life, however busy: a client that sends a byte now and then holds a place
     * no longer than this. n8n's editor opens its push connection again by itself (a few seconds later).
     */
    gateMaxLifeSeconds: seconds.default(3600),
    /**
     * A client at EDITOR_GATE_MAX_PER_CLIENT: its oldest connection, held this long, makes room for a new
     * one (a tab holding many cannot keep the trainee's other tabs out); younger ones (a flood) do not.
     */
    gateMakeRoomSeconds: seconds.default(30),
    /**
     * The console's own port: connections held at once (every client together), and how long a client may
     * take to send a request's headers and the whole request. Its event streams are answers, not requests:
     * these bounds leave them alone.
     */
    consoleMaxConnections: count.default(128),
    consoleHeadersSeconds: seconds.default(10),
    consoleRequestSeconds: seconds.default(30),
    /**
     * The classroom certificate (PEM text, the chain the browser is given) and its key (PEM text): both
     * ports then speak TLS only (Node's own `tls`), the session cookie is `Secure`. Both or neither. Given
     * as text, not as files: the console's user reads no file of the host's (docker/lab/tls.sh).
     */
    tlsCert: PemCertificateSchema.optional(),
    tlsKey: PemKeySchema.optional(),
    /**
     * n8n only at an address on this IPv4 network (compose: n8n-front's subnet): the gate and every request
     * the console makes to n8n refuse any other (app/n8n/subnet-guard.ts). Unset: no restriction.
     */
    n8nAllowedSubnet: subnet.optional(),
    /** Host names the console answers besides 127.0.0.1, [::1] and localhost. */
    allowedHosts: list.default([]),
    /** The stage checker's last report, shown when the file exists. */
    checkReport: z.string().min(1).default(`reports/${REPORT_FILE}`),
    pollMs: z.coerce.number().int().min(100).max(60_000).default(1000),
    /** The alert webhook's path the test-alert buttons post to: the same one the stage checker uses. */
    alertWebhookPath: WebhookPathSchema.default(RESPONSE_WEBHOOK_PATH),
    /**
     * The lab's own secret. When set, every page, file, API and event stream needs a session that a login
     * with it opened (the console is published beyond loopback). Unset: loopback only, no login.
     */
    secret: z.string().min(12, 'must be at least 12 characters').max(512).optional(),
    /** The stage checker the Check control runs with this Node (the image's dist/app/check/cli.js). */
    checker: z.string().min(1).default(DEFAULT_CHECKER),
    /** A check still running after this long is killed. */
    checkTimeoutSeconds: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 3600)
      .default(CHECK_TIMEOUT_MS / 1000),
    /** The mock API's address as the workflow reaches it: the `servers` entry of the served OpenAPI document. */
    workflowApiUrl: httpUrl.optional(),
    /** The Add a starter control (app/n8n/starter.ts, like make starter): off hides and refuses it. */
    starters: z.enum(STARTERS_VALUES, { error: 'must be on or off' }).default('on'),
    /** The lab's name (`default`: the single lab): its session cookie's name is its own. */
    lab: z
      .string()
      .regex(LAB_NAME_PATTERN, 'must be a lab name (lower-case letters, digits and -)')
      .default('default'),
    /** The port the console is published on (compose: LAB_CONSOLE_PORT); defaults to the one it listens on. */
    publishedPort: port.optional(),
    /** The https:// origin of the TLS proxy in front of the lab (docs/trainer-guide.md), without a port. */
    publicOrigin: PublicOriginSchema.optional(),
  })
  .refine((config) => config.gateMaxPerClient <= config.gateMaxConnections, {
    path: ['gateMaxPerClient'],
    message: 'must not be above EDITOR_GATE_MAX_CONNECTIONS',
  })
  .refine((config) => config.gateFirstByteSeconds <= config.gateIdleSeconds, {
    path: ['gateFirstByteSeconds'],
    message: 'must not be above EDITOR_GATE_IDLE_SECONDS',
  })
  .refine((config) => config.consoleHeadersSeconds <= config.consoleRequestSeconds, {
    path: ['consoleHeadersSeconds'],
    message: 'must not be above CONSOLE_REQUEST_SECONDS',
  })
  .refine((config) => (config.tlsCert === undefined) === (config.tlsKey === undefined), {
    path: ['tlsKey'],
    message: 'CONSOLE_TLS_CERT and CONSOLE_TLS_KEY go together',
  })
  .refine((config) => config.tlsCert === undefined || config.secret !== undefined, {
    path: ['tlsCert'],
    message: 'needs CONSOLE_SECRET too: a console served over TLS is published beyond loopback',
  })
  // A literal address in N8N_URL is never looked up, so it is held to the subnet here.
  .superRefine((config, ctx) => {
    const outside = config.n8nAllowedSubnet && literalOutside(config.n8nUrl, config.n8nAllowedSubnet);
    if (outside) ctx.addIssue({ code: 'custom', path: ['n8nAllowedSubnet'], message: outside });
  })
  // A console a proxy serves is published: never without the lab's secret.
  .refine((config) => config.publicOrigin === undefined || config.secret !== undefined, {
    path: ['publicOrigin'],
    message: 'needs CONSOLE_SECRET too: a console behind a proxy is published beyond loopback',
  });
export type ConsoleConfig = z.infer<typeof ConsoleConfigSchema>;

export const CONSOLE_ENV = {
  host: 'CONSOLE_HOST',
  port: 'CONSOLE_PORT',
  mockApiUrl: 'MOCK_API_URL',
  mockApiSocket: 'MOCK_API_SOCKET',
  n8nUrl: 'N8N_URL',
  n8nPublicUrl: 'N8N_PUBLIC_URL',
  n8nApiKey: 'N8N_API_KEY',
  gatePort: 'EDITOR_GATE_PORT',
  refusedClients: 'CONSOLE_REFUSED_CLIENTS',
  gateMaxConnections: 'EDITOR_GATE_MAX_CONNECTIONS',
  gateMaxPerClient: 'EDITOR_GATE_MAX_PER_CLIENT',
  gateFirstByteSeconds: 'EDITOR_GATE_FIRST_BYTE_SECONDS',
  gateIdleSeconds: 'EDITOR_GATE_IDLE_SECONDS',
  gateEndGraceSeconds: 'EDITOR_GATE_END_GRACE_SECONDS',
  gateMaxLifeSeconds: 'EDITOR_GATE_MAX_LIFE_SECONDS',
  gateMakeRoomSeconds: 'EDITOR_GATE_MAKE_ROOM_SECONDS',
  consoleMaxConnections: 'CONSOLE_MAX_CONNECTIONS',
  consoleHeadersSeconds: 'CONSOLE_HEADERS_SECONDS',
  consoleRequestSeconds: 'CONSOLE_REQUEST_SECONDS',
  tlsCert: 'CONSOLE_TLS_CERT',
  tlsKey: 'CONSOLE_TLS_KEY',
  n8nAllowedSubnet: 'N8N_ALLOWED_SUBNET',
  allowedHosts: 'CONSOLE_ALLOWED_HOSTS',
  checkReport: 'CHECK_REPORT',
  pollMs: 'CONSOLE_POLL_MS',
  alertWebhookPath: 'ALERT_WEBHOOK_PATH',
  secret: 'CONSOLE_SECRET',
  workflowApiUrl: 'MOCK_API_WORKFLOW_URL',
  checker: 'CONSOLE_CHECKER',
  checkTimeoutSeconds: 'CONSOLE_CHECK_TIMEOUT_SECONDS',
  starters: 'LAB_STARTERS',
  lab: 'CONSOLE_LAB',
  publishedPort: 'CONSOLE_PUBLISHED_PORT',
  publicOrigin: 'LAB_PUBLIC_ORIGIN',
} as const satisfies Record<keyof ConsoleConfig, string>;

/** Environment over defaults; throws one line naming the variable on a bad value. */
export function loadConsoleConfig(env: Readonly<Record<string, string | undefined>>): ConsoleConfig {
  // A secret is never echoed, not even a wrong one.
  const parsed = parseEnvConfig(ConsoleConfigSchema, env, {
    variables: CONSOLE_ENV,
    hidden: ['secret', 'tlsKey'],
  });
  if (parsed.ok) return parsed.config;
  throw new Error(parsed.error);
}

/** The sessions' cookie name and public origin, from the lab's name and published port. */
export function sessionSettings(config: ConsoleConfig): SessionSettings {
  const port = config.publishedPort ?? config.port;
  return {
    cookie: sessionCookieName(config.lab, port),
    publicOrigin: config.publicOrigin === undefined ? undefined : publicOriginAt(config.publicOrigin, port),
    tlsOrigins:
      config.tlsCert === undefined
        ? undefined
        : [...LOOPBACK_NAMES, ...config.allowedHosts].map((name) => publicOriginAt(`https://${name}`, port)),
  };
}

/** The editor gate's bounds, in the units the gate counts. */
export function gateLimits(config: ConsoleConfig): GateLimits {
  return {
    maxConnections: config.gateMaxConnections,
    maxPerClient: config.gateMaxPerClient,
    firstByteMs: config.gateFirstByteSeconds * 1000,
    idleMs: config.gateIdleSeconds * 1000,
    endGraceMs: config.gateEndGraceSeconds * 1000,
    maxLifeMs: config.gateMaxLifeSeconds * 1000,
    makeRoomAfterMs: config.gateMakeRoomSeconds * 1000,
  };
}
