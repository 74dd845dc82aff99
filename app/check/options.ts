/** The stage checker's command line, parsed once and checked by zod; pure, so it is unit-tested. */
import { z } from 'zod';
import { CHECK_REPORT_PATH, StageNameSchema } from '../check-report/report.js';
import { WebhookPathSchema } from '../driver/webhook-path.js';
import type { ApiOption } from '../mock-api-client/local-mock-api.js';
import { STAGE_NAMES, type StageName } from '../stages/stages.js';
import {
  API_FLAGS_USAGE,
  apiOf,
  approvalTimeoutOf,
  LIMIT_AND_TRACE_USAGE,
  parseFlags,
  TARGET_FIELDS,
  TARGET_FLAGS,
  UsageError,
} from '../targets/options.js';
import type { TargetName } from '../targets/targets.js';
import { RESPONSE_WEBHOOK_PATH, ROLLBACK_WEBHOOK_PATH } from '../workflow/constants.js';

export const CHECK_USAGE = `usage: node dist/app/check/cli.js --stage STAGE|all --target reference|n8n [options]
  --stage STAGE                 check every stage up to and including STAGE:
                                ${STAGE_NAMES.join(', ')}, or all
  --only                        check STAGE alone, not the stages before it (quicker, for a rerun)
${API_FLAGS_USAGE}
  --n8n URL                     the workflow platform's base URL (default http://127.0.0.1:5678)
  --editor-url URL              the n8n editor as the trainee's browser reaches it: each FAIL links its run
                                there (default: the --n8n URL)
  --resume-origin URL           replace the origin of the resume URLs the platform announces
  --webhook-path PATH           the alert webhook's path (default suspicious-login: <n8n>/webhook/PATH)
  --rollback-path PATH          the rollback webhook's path (default suspicious-login-rollback)
  --mapping FILE                your names for what the exercise leaves open (docs/trainee-guide.md)
  --report FILE                 JSON results (default ${CHECK_REPORT_PATH})
  --json                        print the report (the --report file's JSON) instead of the lines
  --timings                     print where each stimulus's time went (reset, trigger, run, settle, look-up)
${LIMIT_AND_TRACE_USAGE}
environment: N8N_API_KEY        n8n public-API key: the checker then finds each stimulus's run (the Webhook
                                stage reads its data, a FAIL points at it, the wait ends when it ends)`;

export interface CheckOptions {
  stage: StageName | 'all';
  /** Judge only `stage`, not the stages before it. */
  only: boolean;
  target: TargetName;
  api: ApiOption;
  n8nUrl: string;
  /** The editor's address as the trainee's browser reaches it (a run's link); the n8n URL by default. */
  editorUrl: string;
  /** Print each stimulus's phases. */
  timings: boolean;
  /** Print the report's JSON instead of the lines. */
  json: boolean;
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

const RawSchema = z.object({
  stage: z.union([StageNameSchema, z.literal('all')], {
    error: `--stage must be one of ${STAGE_NAMES.join(', ')}, all`,
  }),
  ...TARGET_FIELDS,
  'webhook-path': WebhookPathSchema.default(RESPONSE_WEBHOOK_PATH),
  'rollback-path': WebhookPathSchema.default(ROLLBACK_WEBHOOK_PATH),
  mapping: z.string().min(1).optional(),
  report: z.string().min(1).default(CHECK_REPORT_PATH),
  only: z.boolean().default(false),
  'editor-url': z.url({ protocol: /^https?$/ }).optional(),
  timings: z.boolean().default(false),
  json: z.boolean().default(false),
});

const EnvSchema = z.object({
  N8N_API_KEY: z.string().trim().min(1).optional().catch(undefined),
});

/** Returns null for --help. */
export function parseCheckOptions(
  argv: readonly string[],
  env: Record<string, string | undefined> = {},
): CheckOptions | null {
  const raw = parseFlags(
    argv,
    {
      ...TARGET_FLAGS,
      stage: { type: 'string' },
      'webhook-path': { type: 'string' },
      'rollback-path': { type: 'string' },
      mapping: { type: 'string' },
      report: { type: 'string' },
      only: { type: 'boolean' },
      'editor-url': { type: 'string' },
      timings: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    RawSchema,
  );
  if (raw === null) return null;
  const api = apiOf(raw);
  if (
    raw.target === 'reference' &&
    (raw['webhook-path'] !== RESPONSE_WEBHOOK_PATH || raw['rollback-path'] !== ROLLBACK_WEBHOOK_PATH)
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
    editorUrl: raw['editor-url'] ?? raw.n8n,
    timings: raw.timings,
    json: raw.json,
    resumeOrigin: raw['resume-origin'],
    webhookPath: raw['webhook-path'],
    rollbackPath: raw['rollback-path'],
    mappingPath: raw.mapping,
    reportPath: raw.report,
    approvalTimeoutSeconds: approvalTimeoutOf(raw, env),
    apiKey: raw.target === 'n8n' ? environment.N8N_API_KEY : undefined,
    verbose: raw.verbose,
  };
}
