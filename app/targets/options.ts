/**
 * The flags the acceptance matrix and the stage checker share (where the workflow and the mock API are),
 * their rules, and the strict parse both command lines go through; pure, so it is unit-tested.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { z } from 'zod';
import { readSetting, SettingError, settingSchema } from '../lab-settings/rules.js';
import { APPROVAL_TIMEOUT_SECONDS } from '../lab-settings/settings.js';
import type { MockApiAddress } from '../mock-api-client/client.js';
import type { ApiOption } from '../mock-api-client/local-mock-api.js';
import { UsageError } from '../tool-kit/run-tool.js';
import { N8N_APPROVAL_TIMEOUT_SECONDS, REFERENCE_APPROVAL_TIMEOUT_SECONDS } from './targets.js';

export { UsageError };

const HttpUrlSchema = z.url({ protocol: /^https?$/ });

/** The flags the runner and the stage checker share: where the workflow and the mock API are. */
export const TARGET_FIELDS = {
  target: z.enum(['reference', 'n8n'], { error: '--target must be reference or n8n' }),
  api: HttpUrlSchema.optional(),
  'api-socket': z.string().startsWith('/', 'must be an absolute path').optional(),
  'api-exec': z.string().trim().min(1).optional(),
  n8n: HttpUrlSchema.default('http://127.0.0.1:5678'),
  'resume-origin': HttpUrlSchema.optional(),
  'approval-timeout-seconds': settingSchema(APPROVAL_TIMEOUT_SECONDS).optional(),
  verbose: z.boolean().default(false),
};
export const TARGET_FLAGS = {
  target: { type: 'string' },
  api: { type: 'string' },
  'api-socket': { type: 'string' },
  'api-exec': { type: 'string' },
  n8n: { type: 'string' },
  'resume-origin': { type: 'string' },
  'approval-timeout-seconds': { type: 'string' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

/** The help lines of the flags that say how the mock API is reached, as both commands print them. */
export const API_FLAGS_USAGE = `  --api URL                     mock API base URL (reference without it: an in-process mock API)
  --api-socket PATH             reach the mock API over its Unix socket (n8n target only)
  --api-exec "PREFIX"           reach the mock API by running PREFIX METHOD PATH [JSON] (n8n target only)`;

/** The help lines of --approval-timeout-seconds and --verbose, the last lines of both commands' flags. */
export const LIMIT_AND_TRACE_USAGE = `  --approval-timeout-seconds N  the approval time limit (reference: sets it, default ${REFERENCE_APPROVAL_TIMEOUT_SECONDS};
                                n8n: what the workflow was given, default $APPROVAL_TIMEOUT_SECONDS or ${N8N_APPROVAL_TIMEOUT_SECONDS})
  --verbose                     print the reference workflow's node trace on stderr`;

/** parseArgs (strict) then the schema; a bad flag or value is one UsageError line. Null for --help. */
export function parseFlags<S extends z.ZodType>(
  argv: readonly string[],
  options: NonNullable<ParseArgsConfig['options']>,
  schema: S,
): z.output<S> | null {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({ args: [...argv], strict: true, allowPositionals: false, options }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help === true) return null;
  const { help: _help, ...rest } = values;
  const parsed = schema.safeParse(rest);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const flag = issue?.path[0];
    throw new UsageError(
      flag === undefined ? (issue?.message ?? 'invalid options') : `--${String(flag)}: ${issue?.message}`,
    );
  }
  return parsed.data;
}

type TargetRaw = z.output<z.ZodObject<typeof TARGET_FIELDS>>;

/** How the mock API is reached, with the rules both commands share: one of --api, --api-socket, --api-exec. */
export function apiOf(raw: TargetRaw): ApiOption {
  const given: MockApiAddress[] = [];
  if (raw.api !== undefined) given.push({ kind: 'http', url: raw.api });
  if (raw['api-socket'] !== undefined) given.push({ kind: 'socket', path: raw['api-socket'] });
  if (raw['api-exec'] !== undefined) given.push({ kind: 'exec', prefix: raw['api-exec'] });
  if (given.length > 1) throw new UsageError('give one of --api, --api-socket, --api-exec');
  const api: ApiOption = given[0] ?? { kind: 'local' };
  // The reference workflow calls the mock API itself, over HTTP, as n8n's HTTP nodes do.
  if (raw.target === 'reference' && (api.kind === 'exec' || api.kind === 'socket'))
    throw new UsageError(
      `--target reference needs --api URL (or none, for an in-process mock API), not --api-${api.kind}`,
    );
  if (raw.target === 'n8n' && api.kind === 'local')
    throw new UsageError(
      '--target n8n needs --api URL, --api-socket PATH or --api-exec: the mock API that the workflow calls',
    );
  return api;
}

/**
 * The approval limit: the flag; else the reference's short default, or n8n's from the lab setting (the
 * rule the workflow reads it with; a bad value is a UsageError line, as the host scripts say it).
 */
export function approvalTimeoutOf(raw: TargetRaw, env: Record<string, string | undefined>): number {
  const flag = raw['approval-timeout-seconds'];
  if (flag !== undefined) return flag;
  if (raw.target === 'reference') return REFERENCE_APPROVAL_TIMEOUT_SECONDS;
  try {
    return readSetting(APPROVAL_TIMEOUT_SECONDS, env);
  } catch (error) {
    if (error instanceof SettingError) throw new UsageError(error.message);
    throw error;
  }
}
