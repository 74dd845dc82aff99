/** The mock API's settings: flags over environment over defaults, parsed without touching the process. */
import { isIP } from 'node:net';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { CidrListSchema } from '../service-kit/cidr.js';
import { parseEnvConfig } from '../service-kit/env-config.js';

const port = z.coerce
  .number({ error: 'must be a number' })
  .int('must be a whole number')
  .min(0, 'must be 0 to 65535')
  .max(65535, 'must be 0 to 65535');

const host = z
  .string()
  .min(1, 'must not be empty')
  .refine(
    (h) =>
      isIP(h) !== 0 ||
      /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i.test(h),
    {
      message: 'must be an IP address or a host name',
    },
  );

const milliseconds = z.coerce.number().int('must be a whole number').min(1).max(600_000);

const list = z.string().transform((s) =>
  s
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean),
);

export const ConfigSchema = z
  .object({
    host: host.default('127.0.0.1'),
    port: port.default(8081),
    /** CIDRs allowed to connect; empty means everyone (the lab's network does the restricting). */
    allowedClients: CidrListSchema,
    /** Host names accepted in the Host header besides IP literals and localhost; `*` accepts any. */
    allowedHosts: list.default([]),
    headersTimeoutMs: milliseconds.default(10_000),
    requestTimeoutMs: milliseconds.default(30_000),
    keepAliveTimeoutMs: milliseconds.default(5_000),
    /**
     * How often Node checks the headers and request timeouts. Its default is 30 s, which lets a slow
     * client hold a connection up to 30 s past either timeout.
     */
    connectionsCheckIntervalMs: milliseconds.default(1_000),
    shutdownGraceMs: milliseconds.default(1_500),
    /**
     * Also listen on this Unix socket (the lab console's only way in). A peer on it has no IP address:
     * the socket file's permissions decide who connects, so ALLOWED_CLIENTS does not apply to it.
     */
    socketPath: z.string().startsWith('/', 'must be an absolute path').max(100).optional(),
  })
  .refine((c) => c.headersTimeoutMs <= c.requestTimeoutMs, {
    path: ['headersTimeoutMs'],
    message: 'must not exceed REQUEST_TIMEOUT_MS (Node refuses to start otherwise)',
  });
export type Config = z.infer<typeof ConfigSchema>;

const ENV_KEYS = {
  host: 'HOST',
  port: 'PORT',
  allowedClients: 'ALLOWED_CLIENTS',
  allowedHosts: 'ALLOWED_HOSTS',
  headersTimeoutMs: 'HEADERS_TIMEOUT_MS',
  requestTimeoutMs: 'REQUEST_TIMEOUT_MS',
  keepAliveTimeoutMs: 'KEEP_ALIVE_TIMEOUT_MS',
  connectionsCheckIntervalMs: 'CONNECTIONS_CHECK_INTERVAL_MS',
  shutdownGraceMs: 'SHUTDOWN_GRACE_MS',
  socketPath: 'SOCKET_PATH',
} as const satisfies Record<keyof Config, string>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Parses flags over environment over defaults. Pure: the caller hands in argv and env, so it is
 * unit-tested without touching the process. Throws ConfigError with one line on a bad value.
 */
export function loadConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Config {
  let flags: { host?: string | undefined; port?: string | undefined };
  try {
    ({ values: flags } = parseArgs({
      args: [...argv],
      options: { host: { type: 'string' }, port: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new ConfigError(`invalid arguments: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = parseEnvConfig(ConfigSchema, env, {
    variables: ENV_KEYS,
    overrides: { host: flags.host, port: flags.port },
    labels: { host: 'host (HOST or --host)', port: 'port (PORT or --port)' },
  });
  if (parsed.ok) return parsed.config;
  throw new ConfigError(parsed.error);
}
