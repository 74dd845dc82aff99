/** The `check` subcommand's command line, parsed once and checked by zod; pure, so it is unit-tested. */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { UsageError } from '../options.js';
import {
  N8N_APPROVAL_TIMEOUT_SECONDS,
  REFERENCE_APPROVAL_TIMEOUT_SECONDS,
  type TargetName,
} from '../targets.js';
import { CHECK_REPORT_PATH, STAGE_NAMES, type StageName, StageNameSchema } from './report-schema.js';

export const CHECK_USAGE = `usage: node dist/app/acceptance/cli.js check --stage STAGE|all --target reference|n8n [options]
  --stage STAGE                 check every stage up to and including STAGE:
                                ${STAGE_NAMES.join(', ')}, or all
  --only                        check STAGE alone, not the stages before it (quicker, for a rerun)
  --api URL                     mock API base URL (reference without it: an in-process mock API)
  --api-exec "PREFIX"           reach the mock API by running PREFIX METHOD PATH [JSON] (n8n target only)
  --n8n URL                     the workflow platform's base URL (default http://127.0.0.1:5678)
  --resume-origin URL           replace the origin of the resume URLs the platform announces
  --webhook-path PATH           the alert webhook's path (default suspicious-login: <n8n>/webhook/PATH)
  --rollback-path PATH          the rollback webhook's path (default suspicious-login-rollback)
  --mapping FILE                your names for what the seed leaves open (docs/trainee-guide.md)
  --report FILE                 JSON results (default ${CHECK_REPORT_PATH})
  --approval-timeout-seconds N  the approval time limit (reference: sets it, default ${REFERENCE_APPROVAL_TIMEOUT_SECONDS};
                                n8n: what the workflow was given, default $APPROVAL_TIMEOUT_SECONDS or ${N8N_APPROVAL_TIMEOUT_SECONDS})
  --verbose                     print the reference workflow's node trace on stderr
environment: N8N_API_KEY        n8n public-API key: the Webhook stage then reads the execution data`;

export interface CheckOptions {
  stage: StageName | 'all';
  /** Judge only `stage`, not the stages before it. */
  only: boolean;
  target: TargetName;
  api: { kind: 'http'; url: string } | { kind: 'exec'; prefix: string } | { kind: 'local' };
  n8nUrl: string;
  resumeOrigin: string | undefined;
  webhookPath: string;
  rollbackPath: string;
  mappingPath: string | undefined;
  reportPath: string;
  approvalTimeoutSeconds: number;
  /** The n8n public-API key, from N8N_API_KEY; never from the command line (it would show in ps). */
  apiKey: string | undefined;
  verbose: boolean;
}

const HttpUrlSchema = z.url({ protocol: /^https?$/ });
const PathSchema = z
  .string()
  .trim()
  .transform((p) => p.replace(/^\/+/, '').replace(/^webhook\//, ''))
  .pipe(z.string().regex(/^[A-Za-z0-9._~/-]+$/, 'a webhook path: letters, digits, - _ . ~ /'));

const RawSchema = z.object({
  stage: z.union([StageNameSchema, z.literal('all')], {
    error: `--stage must be one of ${STAGE_NAMES.join(', ')}, all`,
  }),
  target: z.enum(['reference', 'n8n'], { error: '--target must be reference or n8n' }),
  api: HttpUrlSchema.optional(),
  'api-exec': z.string().trim().min(1).optional(),
  n8n: HttpUrlSchema.default('http://127.0.0.1:5678'),
  'resume-origin': HttpUrlSchema.optional(),
  'webhook-path': PathSchema.default('suspicious-login'),
  'rollback-path': PathSchema.default('suspicious-login-rollback'),
  mapping: z.string().min(1).optional(),
  report: z.string().min(1).default(CHECK_REPORT_PATH),
  'approval-timeout-seconds': z.coerce.number().positive().max(3600).optional(),
  only: z.boolean().default(false),
  verbose: z.boolean().default(false),
});

const EnvSchema = z.object({
  APPROVAL_TIMEOUT_SECONDS: z.coerce.number().positive().max(3600).optional().catch(undefined),
  N8N_API_KEY: z.string().trim().min(1).optional().catch(undefined),
});

/** Returns null for --help. */
export function parseCheckOptions(
  argv: readonly string[],
  env: Record<string, string | undefined> = {},
): CheckOptions | null {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        stage: { type: 'string' },
        target: { type: 'string' },
        api: { type: 'string' },
        'api-exec': { type: 'string' },
        n8n: { type: 'string' },
        'resume-origin': { type: 'string' },
        'webhook-path': { type: 'string' },
        'rollback-path': { type: 'string' },
        mapping: { type: 'string' },
        report: { type: 'string' },
        'approval-timeout-seconds': { type: 'string' },
        only: { type: 'boolean' },
        verbose: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help === true) return null;
  const parsed = RawSchema.safeParse(values);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const flag = issue?.path[0];
    throw new UsageError(
      flag === undefined ? (issue?.message ?? 'invalid options') : `--${String(flag)}: ${issue?.message}`,
    );
  }
  const raw = parsed.data;
  if (raw.api !== undefined && raw['api-exec'] !== undefined)
    throw new UsageError('give --api or --api-exec, not both');
  let api: CheckOptions['api'];
  if (raw.api !== undefined) api = { kind: 'http', url: raw.api };
  else if (raw['api-exec'] !== undefined) api = { kind: 'exec', prefix: raw['api-exec'] };
  else api = { kind: 'local' };
  if (raw.target === 'reference' && api.kind === 'exec')
    throw new UsageError('--target reference needs --api URL (or neither), not --api-exec');
  if (raw.target === 'n8n' && api.kind === 'local')
    throw new UsageError('--target n8n needs --api URL or --api-exec: the mock API that the workflow calls');
  if (
    raw.target === 'reference' &&
    (raw['webhook-path'] !== 'suspicious-login' || raw['rollback-path'] !== 'suspicious-login-rollback')
  )
    throw new UsageError(
      '--webhook-path and --rollback-path apply to --target n8n (the reference has its own)',
    );
  if (raw.only && raw.stage === 'all') throw new UsageError('--only needs one stage, not all');
  const environment = EnvSchema.parse(env);
  return {
    stage: raw.stage,
    only: raw.only,
    target: raw.target,
    api,
    n8nUrl: raw.n8n,
    resumeOrigin: raw['resume-origin'],
    webhookPath: raw['webhook-path'],
    rollbackPath: raw['rollback-path'],
    mappingPath: raw.mapping,
    reportPath: raw.report,
    approvalTimeoutSeconds:
      raw['approval-timeout-seconds'] ??
      (raw.target === 'reference'
        ? REFERENCE_APPROVAL_TIMEOUT_SECONDS
        : (environment.APPROVAL_TIMEOUT_SECONDS ?? N8N_APPROVAL_TIMEOUT_SECONDS)),
    apiKey: raw.target === 'n8n' ? environment.N8N_API_KEY : undefined,
    verbose: raw.verbose,
  };
}
