/** The checker on the reference target with an in-process mock API, quiet, its report in a temp folder. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { CheckOptions } from '../../app/check/options.js';
import type { CheckHooks } from '../../app/check/run-check.js';
import type { CheckReport } from '../../app/check-report/report.js';
import type { StageName } from '../../app/stages/stages.js';
import { startReferenceTarget } from '../../app/targets/targets.js';
import type { Output } from '../../app/tool-kit/output.js';
import type { WorkflowOverrides } from '../../app/workflow/guide/state.js';

/**
 * One folder for the reports of the test file that imports this (each file has its own copy of this
 * module), removed after its tests: nothing is left in /tmp. A process 'exit' listener was not enough:
 * vitest ends its workers without it.
 */
const reports = mkdtempSync(join(tmpdir(), 'check-test-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

/** Shorter than the CLI's: a failing expectation waits 2 s here, not 3. */
export const TEST_TIMING = { pollMs: 25, settleMs: 200, phaseTimeoutMs: 2_000, approvalLatenessMs: 500 };

export function checkOptions(
  stage: CheckOptions['stage'],
  overrides: Partial<CheckOptions> = {},
): CheckOptions {
  return {
    stage,
    only: false,
    target: 'reference',
    api: { kind: 'local' },
    n8nUrl: 'http://127.0.0.1:5678',
    editorUrl: 'http://127.0.0.1:5678',
    timings: false,
    json: false,
    resumeOrigin: undefined,
    webhookPath: 'suspicious-login',
    rollbackPath: 'suspicious-login-rollback',
    mappingPath: undefined,
    reportPath: join(reports, `${Math.random().toString(16).slice(2)}.json`),
    approvalTimeoutSeconds: 1,
    apiKey: undefined,
    verbose: false,
    ...overrides,
  };
}

export function checkReference(
  stage: CheckOptions['stage'],
  variant?: WorkflowOverrides,
  lines: string[] = [],
): [CheckOptions, Output, CheckHooks] {
  return [
    checkOptions(stage),
    { out: (line) => lines.push(line), err: () => {} },
    {
      timing: TEST_TIMING,
      ...(variant ? { startReference: (options) => startReferenceTarget({ ...options, variant }) } : {}),
    },
  ];
}

export function failedStages(report: CheckReport): StageName[] {
  return report.stages.filter((s) => s.status === 'fail').map((s) => s.stage);
}

export function hintsOf(report: CheckReport, stage: StageName): string[] {
  return report.results.filter((r) => r.stage === stage && r.status === 'fail').map((r) => r.hint ?? '');
}

/** A FAIL's detail as app/judges/expectations/kit.ts `gap` words it: `<subject>: want <x>, got <y>`. */
export const WANT_GOT = /^.+: want .+, got .+$/;

/** The failed results whose detail is missing or not in the want/got form (none, when all is well). */
export function withoutWantGot(report: CheckReport): string[] {
  return report.results
    .filter((r) => r.status === 'fail' && !WANT_GOT.test(r.detail ?? ''))
    .map((r) => `${r.stimulus}: ${r.expectation}: ${JSON.stringify(r.detail)}`);
}
