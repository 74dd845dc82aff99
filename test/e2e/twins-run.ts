/**
 * One side of the twins test (test/e2e/twins.ts): the stage checker's every scenario and the acceptance
 * matrix's every case run on one workflow runner (n8n, or the simulator with the guide's workflow,
 * optionally changed), each scenario's final destination state kept, normalised (twins-compare.ts).
 */
import { type CaseResult, runMatrix } from '../../app/acceptance/runner.js';
import type { CaseName } from '../../app/acceptance/verdict.js';
import type { CheckOptions } from '../../app/check/options.js';
import {
  CHECK_N8N_TIMING,
  CHECK_REFERENCE_TIMING,
  type CheckHooks,
  runCheck,
} from '../../app/check/run-check.js';
import type { CheckReport } from '../../app/check-report/report.js';
import type { Timing } from '../../app/driver/timing.js';
import { mockApiClient } from '../../app/mock-api-client/client.js';
import type { StateReading } from '../../app/mock-api-client/readings.js';
import type { StageName } from '../../app/stages/stages.js';
import { n8nTarget, startReferenceTarget, type Target } from '../../app/targets/targets.js';
import type { Output } from '../../app/tool-kit/output.js';
import { RESPONSE_WEBHOOK_PATH, ROLLBACK_WEBHOOK_PATH } from '../../app/workflow/constants.js';
import type { WorkflowOverrides } from '../../app/workflow/guide/state.js';
import { normaliseState, placeholdersOf, suffixOf } from './twins-compare.js';

/** Where the workflow runs: the suite's n8n, or the simulator (its nodes changed by `variant`). */
export type Side =
  | { kind: 'n8n'; n8nUrl: string; apiKey: string | undefined }
  | { kind: 'simulator'; variant?: WorkflowOverrides | undefined };

export interface SideRun {
  /** The mock API both sides' workflows call and the drivers read. */
  mockApiUrl: string;
  /** The workflow's approval limit: n8n's APPROVAL_TIMEOUT_SECONDS, given to the simulator as well. */
  approvalTimeoutSeconds: number;
  /** The checker's scenarios: those of the stages up to `stage` (`only`: of it alone); none: skipped. */
  check?: { stage: StageName | 'all'; only: boolean; reportPath: string; output: Output } | undefined;
  /** The matrix's cases (none: skipped). */
  cases?: readonly CaseName[] | undefined;
  /** Replaces the checker's timing, on both parts (tests). */
  timing?: Timing | undefined;
  /** One line as each part ends. */
  log?: ((line: string) => void) | undefined;
}

export interface SideStates {
  /** `check <scenario id>` and `matrix <case>`, each with its normalised final state, in the order run. */
  states: Map<string, unknown>;
  check: CheckReport | null;
  matrix: CaseResult[];
}

/** The states a scenario never got (its GET /state never answered): a value no real state equals. */
export const NO_STATE = '(no state was read)';

export async function collectStates(side: Side, run: SideRun): Promise<SideStates> {
  const states = new Map<string, unknown>();
  const log = run.log ?? (() => {});
  let check: CheckReport | null = null;
  if (run.check !== undefined) {
    const began = performance.now();
    const hooks: CheckHooks = {
      onEvidence: (scenario, evidence) => {
        const { eventId, approver } = evidence.facts;
        states.set(
          `check ${scenario.id}`,
          normaliseState(evidence.state, placeholdersOf({ eventId, approver, suffix: suffixOf(eventId) })),
        );
      },
      ...(run.timing ? { timing: run.timing } : {}),
      ...(side.kind === 'simulator' && side.variant !== undefined
        ? { startReference: (o) => startReferenceTarget({ ...o, variant: side.variant }) }
        : {}),
    };
    check = await runCheck(checkOptions(side, run, run.check), run.check.output, hooks);
    log(`checker (${run.check.stage}): ${states.size} scenario(s) in ${seconds(began)} s`);
  }
  const matrix: CaseResult[] = [];
  if (run.cases !== undefined && run.cases.length > 0) {
    const began = performance.now();
    const target = await targetOf(side, run);
    const api = mockApiClient({ kind: 'http', url: run.mockApiUrl });
    let last: StateReading | null = null;
    try {
      matrix.push(
        ...(await runMatrix(run.cases, {
          api,
          workflowUrl: target.workflowUrl,
          approvalTimeoutSeconds: target.approvalTimeoutSeconds,
          // The checker's patience, not the matrix's: it bounds only a case whose verdict never passes
          // (the state is read once its run has long ended either way) and keeps such a case short.
          timing: run.timing ?? (side.kind === 'n8n' ? CHECK_N8N_TIMING : CHECK_REFERENCE_TIMING),
          ...(target.afterCase ? { afterCase: target.afterCase } : {}),
          onState: (_name, state) => {
            last = state;
          },
          onCaseDone: (result) => {
            const state: StateReading | null = last;
            last = null;
            const eventId = result.event_id;
            states.set(
              `matrix ${result.case}`,
              state === null
                ? NO_STATE
                : normaliseState(state, placeholdersOf({ eventId, suffix: suffixOf(eventId) })),
            );
          },
        })),
      );
    } finally {
      api.close();
      await target.close();
    }
    log(`matrix: ${matrix.length} case(s) in ${seconds(began)} s`);
  }
  return { states, check, matrix };
}

function checkOptions(side: Side, run: SideRun, check: NonNullable<SideRun['check']>): CheckOptions {
  const n8nUrl = side.kind === 'n8n' ? side.n8nUrl : 'http://127.0.0.1:5678';
  return {
    stage: check.stage,
    only: check.only,
    target: side.kind === 'n8n' ? 'n8n' : 'reference',
    api: { kind: 'http', url: run.mockApiUrl },
    n8nUrl,
    editorUrl: n8nUrl,
    timings: false,
    json: false,
    resumeOrigin: undefined,
    webhookPath: RESPONSE_WEBHOOK_PATH,
    rollbackPath: ROLLBACK_WEBHOOK_PATH,
    mappingPath: undefined,
    reportPath: check.reportPath,
    approvalTimeoutSeconds: run.approvalTimeoutSeconds,
    apiKey: side.kind === 'n8n' ? side.apiKey : undefined,
    verbose: false,
  };
}

function targetOf(side: Side, run: SideRun): Promise<Target> {
  if (side.kind === 'n8n')
    return Promise.resolve(
      n8nTarget({ n8nUrl: side.n8nUrl, approvalTimeoutSeconds: run.approvalTimeoutSeconds }),
    );
  return startReferenceTarget({
    mockApiUrl: run.mockApiUrl,
    approvalTimeoutSeconds: run.approvalTimeoutSeconds,
    ...(side.variant === undefined ? {} : { variant: side.variant }),
  });
}

function seconds(since: number): string {
  return ((performance.now() - since) / 1000).toFixed(1);
}
