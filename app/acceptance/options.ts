/** The runner's command line, parsed once and checked by zod; pure, so it is unit-tested. */
import { z } from 'zod';
import type { ApiOption } from '../mock-api-client/local-mock-api.js';
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
import { CASE_NAMES, type CaseName } from './verdict.js';

export const USAGE = `usage: node dist/app/acceptance/cli.js --target reference|n8n [options]
${API_FLAGS_USAGE}
  --n8n URL                     n8n base URL (default http://127.0.0.1:5678)
  --resume-origin URL           replace the origin of the resume URLs n8n announces
  --report FILE                 JSON report (default reports/acceptance-<target>.json)
  --cases a,b                   run only these cases (${CASE_NAMES.join(', ')})
${LIMIT_AND_TRACE_USAGE}`;

export interface RunnerCliOptions {
  target: TargetName;
  api: ApiOption;
  n8nUrl: string;
  resumeOrigin: string | undefined;
  reportPath: string;
  cases: CaseName[];
  approvalTimeoutSeconds: number;
  verbose: boolean;
}

const CaseNameSchema = z.enum(CASE_NAMES);

const RawSchema = z.object({
  ...TARGET_FIELDS,
  report: z.string().min(1).optional(),
  cases: z.string().optional(),
});

/**
 * Returns null for --help. The environment only supplies n8n's approval limit: the variable that
 * configures the n8n workflow (APPROVAL_TIMEOUT_SECONDS) then also tells the runner how long to wait.
 */
export function parseOptions(
  argv: readonly string[],
  env: Record<string, string | undefined> = {},
): RunnerCliOptions | null {
  const raw = parseFlags(
    argv,
    { ...TARGET_FLAGS, report: { type: 'string' }, cases: { type: 'string' } },
    RawSchema,
  );
  if (raw === null) return null;
  return {
    target: raw.target,
    api: apiOf(raw),
    n8nUrl: raw.n8n,
    resumeOrigin: raw['resume-origin'],
    reportPath: raw.report ?? `reports/acceptance-${raw.target}.json`,
    cases: parseCases(raw.cases),
    approvalTimeoutSeconds: approvalTimeoutOf(raw, env),
    verbose: raw.verbose,
  };
}

function parseCases(list: string | undefined): CaseName[] {
  if (list === undefined) return [...CASE_NAMES];
  const names = list
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const cases: CaseName[] = [];
  for (const name of names) {
    const parsed = CaseNameSchema.safeParse(name);
    if (!parsed.success)
      throw new UsageError(`--cases: unknown case "${name}" (known: ${CASE_NAMES.join(', ')})`);
    if (!cases.includes(parsed.data)) cases.push(parsed.data);
  }
  if (cases.length === 0) throw new UsageError('--cases: name at least one case');
  // The matrix order, whatever order was typed: reports stay comparable.
  return CASE_NAMES.filter((name) => cases.includes(name));
}
