/** The class board's settings, from the environment, parsed once by zod; loadBoardConfig is pure. */
import { z } from 'zod';
import { PemCertificateSchema, PemKeySchema } from '../service-kit/pem.js';

const list = z.string().transform((s) =>
  s
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter(Boolean),
);

export const BoardConfigSchema = z
  .object({
    host: z.string().min(1).default('127.0.0.1'),
    port: z.coerce.number().int('must be a whole number').min(0).max(65535).default(8080),
    /** One folder per lab (its reports volume, read-only). */
    labs: z.string().startsWith('/', 'must be an absolute path').default('/labs'),
    /** The host's reports/ (copies of each lab's last check), for labs whose volume is gone. */
    saved: z.string().startsWith('/', 'must be an absolute path').optional(),
    /** The host's states file (docker/lab/board.sh writes it every 2 s). */
    states: z.string().startsWith('/', 'must be an absolute path').optional(),
    /** Host names served besides 127.0.0.1, [::1] and localhost (LAB_BIND). */
    allowedHosts: list.default([]),
    /** The board's own secret: set, every page needs a session a sign-in with it opened. */
    secret: z.string().min(12, 'must be at least 12 characters').max(512).optional(),
    /**
     * The classroom certificate (PEM text, its chain after it) and its key (PEM text): the board then speaks
     * TLS only (Node's own `https`) and its cookie is `Secure`. Both or neither (docker/lab/tls.sh).
     */
    tlsCert: PemCertificateSchema.optional(),
    tlsKey: PemKeySchema.optional(),
    /**
     * The class CA's certificate (PEM text, docker/lab/tls.sh's class-ca.pem): the page shows its SHA-256
     * fingerprint and offers the file (/class-ca.pem, without a session) for trainees to trust.
     */
    caCert: PemCertificateSchema.optional(),
    /** The port browsers reach the board on (the engine publishes it): its https:// origins name it. */
    publicPort: z.coerce.number().int('must be a whole number').min(1).max(65535).optional(),
  })
  .refine((config) => (config.tlsCert === undefined) === (config.tlsKey === undefined), {
    path: ['tlsKey'],
    message: 'BOARD_TLS_CERT and BOARD_TLS_KEY go together',
  });
export type BoardConfig = z.infer<typeof BoardConfigSchema>;

export const BOARD_ENV = {
  host: 'BOARD_HOST',
  port: 'BOARD_PORT',
  labs: 'BOARD_LABS',
  saved: 'BOARD_SAVED',
  states: 'BOARD_STATES',
  allowedHosts: 'BOARD_ALLOWED_HOSTS',
  secret: 'CLASS_BOARD_SECRET',
  tlsCert: 'BOARD_TLS_CERT',
  tlsKey: 'BOARD_TLS_KEY',
  caCert: 'BOARD_CA_CERT',
  publicPort: 'BOARD_PUBLIC_PORT',
} as const;

/** Throws one line naming the variable on a bad value; an empty variable is unset. */
export function loadBoardConfig(env: Record<string, string | undefined>): BoardConfig {
  const raw = Object.fromEntries(
    Object.entries(BOARD_ENV)
      .map(([key, name]) => [key, env[name]])
      .filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = BoardConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = String(issue?.path[0] ?? '');
    const name = key in BOARD_ENV ? BOARD_ENV[key as keyof typeof BOARD_ENV] : key;
    throw new Error(`${name}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}
