/**
 * One scenario of the checker: driven by the lab's scenario driver (app/harness/scenario-driver.ts) and judged
 * by its expectations once the journal is quiet. A webhook path nothing listens on stops the whole check
 * (NotListening) with one line.
 */
import { randomUUID } from 'node:crypto';
import type { StateReading } from '../harness/api-readings.js';
import { type ExpectationResult, STAGE_NAMES, type Stopped } from '../harness/check-report.js';
import type { MockApiClient } from '../harness/mock-api.js';
import { type DriverOptions, driveScenario, isOk, type Refusal } from '../harness/scenario-driver.js';
import type { Timing } from '../harness/timing.js';
import { findExecutionFields } from '../n8n/executions.js';
import { SetupError } from '../targets/session.js';
import type { Target } from '../targets/targets.js';
import { LAB_ADDRESS, LAB_USER } from '../workflow/scenario.js';
import { fillTemplate, type Mapping } from './mapping.js';
import type { CheckOptions } from './options.js';
import {
  type Evidence,
  type ExecutionFinding,
  type Facts,
  firstRunFinished,
  MAPPED_FIELDS,
  type Marks,
  type Outcome,
  type Scenario,
  webhookAccepts,
} from './scenarios.js';

/** A setup problem (mock API not reachable, reset refused): the check cannot judge anything. */
export class CheckSetupError extends SetupError {
  override name = 'CheckSetupError';
}

/**
 * n8n answers 404 on a path no published workflow listens on, and for about a second after a publish:
 * a 404 is retried this long before the check stops and says nothing listens.
 */
export const NOT_LISTENING_RETRY_MS = 3_000;

/** Nothing listens on a webhook path: the check stops with one line (exit 2), not a list of failures. */
export class NotListening extends Error {
  override name = 'NotListening';
  constructor(readonly stopped: Stopped) {
    super(stopped.message);
  }
}

/** The one line: what is wrong, and the three ways to fix it. */
export function notListeningMessage(kind: 'alert' | 'rollback', path: string): string {
  const flag = kind === 'alert' ? '--webhook-path' : '--rollback-path';
  return (
    `nothing listens on POST /webhook/${path} (n8n answered 404): publish your ${kind} workflow, its Webhook ` +
    `node set to HTTP method POST and path ${path} (the production URL /webhook/${path}, not the editor's ` +
    `test URL /webhook-test/${path}), or name your path with ARGS="${flag} <your path>"`
  );
}

export interface CheckContext {
  options: CheckOptions;
  target: Target;
  api: MockApiClient;
  timing: Timing;
  mapping: Mapping;
  identity: Record<string, unknown> | null;
  note(message: string): void;
  onEvidence?: (scenario: Scenario, evidence: Evidence) => void;
}

/** Drives a scenario, then judges each of its expectations on the evidence. */
export async function checkScenario(ctx: CheckContext, scenario: Scenario): Promise<ExpectationResult[]> {
  const suffix = randomUUID().slice(0, 8);
  const facts: Facts = {
    eventId: `evt-chk-${scenario.id}-${suffix}`,
    user: scenario.user === 'lab' ? LAB_USER : `nobody-${suffix}`,
    sourceIp: LAB_ADDRESS,
    approver: `approver-${suffix}`,
  };
  const alert = scenario.alert(facts);
  const evidence = (state: StateReading, marks: Marks, execution?: ExecutionFinding): Evidence => ({
    state,
    facts,
    marks,
    mapping: ctx.mapping,
    identity: ctx.identity,
    execution,
    webhookPath: ctx.options.webhookPath,
    rollbackPath: ctx.options.rollbackPath,
  });
  const judgeAll = (e: Evidence): Outcome[] => scenario.expectations.map((x) => x.judge(e));

  // A silent approver: the run must have had its approval time limit before "no block" means anything.
  const judgesRecord = scenario.expectations.some(
    (x) => STAGE_NAMES.indexOf(x.stage) >= STAGE_NAMES.indexOf('record'),
  );
  const driven = await driveScenario(driverOptions(ctx), {
    facts,
    setup: scenario.setup,
    approver: scenario.approver,
    alertPath: ctx.options.webhookPath,
    alert,
    followUp:
      scenario.followUp === undefined
        ? undefined
        : {
            ...(scenario.followUp === 'deliver_again'
              ? { path: ctx.options.webhookPath, payload: alert }
              : {
                  path: ctx.options.rollbackPath,
                  payload: fillTemplate(ctx.mapping.rollback_payload, {
                    event_id: facts.eventId,
                    source_ip: facts.sourceIp,
                  }),
                }),
            firstRunFinished,
          },
    sitOutMs: ctx.target.approvalTimeoutSeconds * 1000 + (judgesRecord ? 0 : ctx.timing.approvalLatenessMs),
    done: (state, marks) => judgeAll(evidence(state, marks)).every((o) => o.status !== 'fail'),
  });
  if ('refusal' in driven) throw new CheckSetupError(refusalMessage(driven.refusal));
  const { marks, state } = driven.evidence;
  if (state === null) throw new CheckSetupError('GET /state never answered a state');

  let execution: ExecutionFinding | undefined;
  if (scenario.expectations.some((x) => x.stage === 'webhook') && isOk(marks.trigger.status)) {
    execution =
      ctx.options.target === 'n8n' && ctx.options.apiKey !== undefined
        ? await findExecutionFields({
            n8nUrl: ctx.options.n8nUrl,
            apiKey: ctx.options.apiKey,
            eventId: facts.eventId,
            sent: Object.fromEntries(MAPPED_FIELDS.map((f) => [f, alert[f]])),
            timeoutMs: ctx.timing.phaseTimeoutMs,
          })
        : { kind: 'no-key' };
  }
  ctx.onEvidence?.(scenario, evidence(state, marks, execution));
  const outcomes = isOk(marks.trigger.status)
    ? judgeAll(evidence(state, marks, execution))
    : scenario.expectations.map((x) =>
        x === webhookAccepts
          ? x.judge(evidence(state, marks))
          : neverArrived(ctx.options.webhookPath, marks.trigger),
      );
  const at = new Date().toISOString();
  return scenario.expectations.map((x, i) => {
    const outcome = outcomes[i] ?? { status: 'fail' as const, hint: 'not judged' };
    return {
      stage: x.stage,
      stimulus: scenario.stimulus,
      expectation: x.text,
      status: outcome.status,
      hint: outcome.status === 'pass' ? null : (outcome.hint ?? null),
      detail: outcome.status === 'pass' ? null : (outcome.detail ?? null),
      at,
      run: null,
    };
  });
}

/**
 * The checker's way of driving (app/harness/scenario-driver.ts): a trigger's 404 retried briefly, then the
 * check stops (NotListening), any other answer judged; every approval request answered with the
 * mapping's body; a first run that never finished still judged, its expectations say why it failed.
 */
function driverOptions(ctx: CheckContext): DriverOptions {
  const { options, timing } = ctx;
  return {
    api: ctx.api,
    workflowUrl: ctx.target.workflowUrl,
    approvalTimeoutSeconds: ctx.target.approvalTimeoutSeconds,
    resumeOrigin: options.resumeOrigin,
    timing,
    note: ctx.note,
    triggerRetryMs: Math.min(timing.phaseTimeoutMs, NOT_LISTENING_RETRY_MS),
    vetTrigger: (answer, _url, path) => {
      if (answer.status !== 404) return;
      const kind = path === options.rollbackPath ? 'rollback' : 'alert';
      throw new NotListening({
        stage: kind === 'alert' ? 'webhook' : 'rollback',
        path,
        message: notListeningMessage(kind, path),
      });
    },
    answers: 'every request',
    decision: (approver, facts) => fillTemplate(ctx.mapping.approval[approver], { approver: facts.approver }),
    unfinishedFirstRun: 'go on',
  };
}

/** A preparation the mock API refused, as the one line of a setup error. */
function refusalMessage({ request, status, body }: Refusal): string {
  return request === 'GET /health'
    ? `GET /health does not report case_mode healthy: ${JSON.stringify(body)}`
    : `${request} answered ${status}`;
}

function neverArrived(path: string, trigger: Marks['trigger']): Outcome {
  return {
    status: 'fail',
    hint: `the alert never reached the workflow: POST /webhook/${path} ${trigger.status === null ? 'could not be sent' : `answered ${trigger.status}`} (see the webhook stage)`,
    ...(trigger.error === null ? {} : { detail: trigger.error }),
  };
}
