/**
 * Runs the acceptance matrix against one workflow target. The lab's scenario driver
 * (app/driver/scenario-driver.ts) plays the alert source and the approver; the runner judges each case from
 * the mock API's destination state only (verdict.ts). The target is reached the same way whether it is
 * the in-process reference host or n8n: webhook POSTs, and the resume URL found in the approval
 * notification.
 */

import { randomUUID } from 'node:crypto';
import { type DriverOptions, driveScenario, isOk, type Refusal } from '../driver/scenario-driver.js';
import type { Timing } from '../driver/timing.js';
import type { Facts } from '../judging/questions.js';
import type { MockApiClient } from '../mock-api-client/client.js';
import type { StateReading } from '../mock-api-client/readings.js';
import { RESPONSE_WEBHOOK_PATH, ROLLBACK_WEBHOOK_PATH } from '../workflow/constants.js';
import { APPROVER, alertPayload, LAB_ADDRESS, LAB_USER } from '../workflow/scenario.js';
import { type CaseName, type Check, EXPECTATIONS, judge, type Verdict } from './verdict.js';

export interface RunnerOptions {
  api: MockApiClient;
  /** Where the triggers live: `<workflowUrl>/webhook/suspicious-login` etc. */
  workflowUrl: string;
  /** The target's approval time limit; the runner only waits for it, the target enforces it. */
  approvalTimeoutSeconds: number;
  /** Replaces the origin of resume URLs that name a host the runner cannot reach. */
  resumeOrigin?: string | undefined;
  timing: Timing;
  /** Called after each case, e.g. to cancel runs the target still has in flight. */
  afterCase?: () => Promise<void>;
  onCaseDone?: (result: CaseResult) => void;
  /** Sees each case's final state, the one it is judged on (test/e2e/twins.ts holds the simulator to n8n). */
  onState?: (name: CaseName, state: StateReading) => void;
}

export interface CaseResult {
  case: CaseName;
  expectation: string;
  observed: string;
  verdict: 'pass' | 'fail';
  seconds: number;
  event_id: string;
  checks: Check[];
  /** What the runner itself met on the way (a refused resume POST, a failed poll); never the verdict. */
  notes: string[];
}

/** How each case is set up and stimulated; the checks are in verdict.ts. */
interface CaseScript {
  confidence: number;
  omitSourceIp?: true;
  approver: 'approve' | 'reject' | 'silent';
  setup?: 'fail_next_write';
  /** A second stimulus, sent once the first run verifiably finished (the positive checks pass). */
  followUp?: 'deliver_again' | 'rollback';
}

const SCRIPTS: Record<CaseName, CaseScript> = {
  positive: { confidence: 92, approver: 'approve' },
  invalid_input: { confidence: 92, omitSourceIp: true, approver: 'approve' },
  low_confidence: { confidence: 12, approver: 'approve' },
  connector_failure: { confidence: 92, approver: 'approve', setup: 'fail_next_write' },
  duplicate_delivery: { confidence: 92, approver: 'approve', followUp: 'deliver_again' },
  rollback: { confidence: 92, approver: 'approve', followUp: 'rollback' },
  approval_rejected: { confidence: 92, approver: 'reject' },
  approval_timed_out: { confidence: 92, approver: 'silent' },
};

export async function runMatrix(cases: readonly CaseName[], options: RunnerOptions): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const name of cases) {
    const result = await runCase(name, options);
    results.push(result);
    options.onCaseDone?.(result);
    await options.afterCase?.();
  }
  return results;
}

export async function runCase(name: CaseName, options: RunnerOptions): Promise<CaseResult> {
  const started = performance.now();
  const script = SCRIPTS[name];
  const facts: Facts = {
    eventId: `evt-acc-${name.replaceAll('_', '-')}-${randomUUID().slice(0, 8)}`,
    sourceIp: LAB_ADDRESS,
    user: LAB_USER,
    approver: APPROVER,
  };
  const notes: string[] = [];
  const finish = (verdict: Verdict): CaseResult => ({
    case: name,
    expectation: EXPECTATIONS[name],
    observed: verdict.observed,
    verdict: verdict.pass ? 'pass' : 'fail',
    seconds: Math.round(performance.now() - started) / 1000,
    event_id: facts.eventId,
    checks: verdict.checks,
    notes,
  });

  try {
    const alert = alertPayload(facts, script);
    const driven = await driveScenario(driverOptions(options, notes), {
      facts,
      setup: script.setup,
      approver: script.approver,
      alertPath: RESPONSE_WEBHOOK_PATH,
      alert,
      followUp:
        script.followUp === undefined
          ? undefined
          : {
              ...(script.followUp === 'deliver_again'
                ? { path: RESPONSE_WEBHOOK_PATH, payload: alert }
                : { path: ROLLBACK_WEBHOOK_PATH, payload: { event_id: facts.eventId } }),
              firstRunFinished: (state) => judge('positive', state, facts).pass,
            },
      done: (state) => judge(name, state, facts).pass,
    });
    if ('refusal' in driven) {
      const precondition = preconditionOf(driven.refusal);
      return finish({ pass: false, checks: [precondition], observed: precondition.check });
    }
    const { marks, state } = driven.evidence;
    if (state !== null) options.onState?.(name, state);
    if (marks.firstRunDone === false) {
      const first = verdictOf('positive', state, facts);
      const checks = first.checks.map((c) => ({ ...c, check: `first run: ${c.check}` }));
      return finish({ pass: false, checks, observed: `first run never finished: ${first.observed}` });
    }
    return finish(verdictOf(name, state, facts));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return finish({
      pass: false,
      checks: [{ check: 'the runner could run the case', pass: false, detail: message }],
      observed: `runner error: ${message}`,
    });
  }
}

/**
 * The matrix's way of driving (app/driver/scenario-driver.ts): a trigger's 404 retried for the whole phase
 * and any other answer but a 2xx a runner error; only the case's own approval requests answered; a first
 * run that never finished ends the case. Notes are kept per case, a repeat of the last one once.
 */
function driverOptions(options: RunnerOptions, notes: string[]): DriverOptions {
  return {
    api: options.api,
    workflowUrl: options.workflowUrl,
    approvalTimeoutSeconds: options.approvalTimeoutSeconds,
    resumeOrigin: options.resumeOrigin,
    timing: options.timing,
    note: (message) => {
      if (notes.at(-1) !== message) notes.push(message);
    },
    vetTrigger: (answer, url) => {
      if (answer.error !== null) throw new Error(answer.error);
      if (!isOk(answer.status)) throw new Error(`POST ${url} answered ${answer.status}`);
    },
    answers: 'own event',
    decision: (approver, facts) => ({ decision: approver, approver: facts.approver }),
    unfinishedFirstRun: 'stop',
  };
}

/** The verdict of the last state seen; a failed check when GET /state never answered one. */
function verdictOf(name: CaseName, state: StateReading | null, facts: Facts): Verdict {
  if (state === null)
    return { pass: false, checks: [{ check: 'GET /state answered', pass: false }], observed: 'no state' };
  return judge(name, state, facts);
}

/** A preparation the mock API refused, as the case's one failed check. */
function preconditionOf(refusal: Refusal): Check {
  const { request, status, body } = refusal;
  switch (request) {
    case 'POST /reset':
      return { check: 'POST /reset answers 200', pass: false, detail: `${status} ${JSON.stringify(body)}` };
    case 'GET /health':
      return {
        check: 'GET /health reports case_mode healthy before the run',
        pass: false,
        detail: `${status} ${JSON.stringify(body)}`,
      };
    case 'POST /control/case-mode':
      return {
        check: 'POST /control/case-mode fail_next_write answers 200',
        pass: false,
        detail: `${status}`,
      };
  }
}
