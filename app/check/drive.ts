/**
 * The checker's way of driving one scenario (app/driver/scenario-driver.ts): a trigger's 404 retried briefly,
 * then the whole check stops (NotListening) with one line; any other answer judged; every approval request
 * answered with the mapping's body; a first run that never finished still judged. A preparation the mock API
 * refuses is a setup error: the check cannot judge anything.
 */
import type { ExpectationResult, Stopped } from '../check-report/report.js';
import {
  type DriverEvidence,
  type DriverOptions,
  type DriverScenario,
  driveScenario,
} from '../driver/scenario-driver.js';
import type { Timing } from '../driver/timing.js';
import { fillTemplate, type Mapping } from '../judges/mapping.js';
import {
  type Evidence,
  type Facts,
  firstRunFinished,
  gap,
  type Scenario,
  webhookAccepts,
} from '../judges/scenarios.js';
import type { MockApiClient } from '../mock-api-client/client.js';
import type { StateReading } from '../mock-api-client/readings.js';
import type { RunSource } from '../runs/run.js';
import { SetupError } from '../targets/session.js';
import type { Target } from '../targets/targets.js';
import type { CheckOptions } from './options.js';

/** A setup problem (mock API not reachable, reset refused): the check cannot judge anything. */
export class CheckSetupError extends SetupError {
  override name = 'CheckSetupError';
}

/**
 * n8n answers 404 on a path no published workflow listens on, and for about a second after a publish:
 * a 404 is retried this long before the check stops and says nothing listens.
 */
export const NOT_LISTENING_RETRY_MS = 3_000;

/**
 * Nothing listens on a webhook path: the check stops with one line (exit 2), not a list of failures; the
 * one result it records is the stimulus's webhook (or rollback) line, failed with that line.
 */
export class NotListening extends Error {
  override name = 'NotListening';
  constructor(
    readonly stopped: Stopped,
    readonly result: ExpectationResult,
  ) {
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

/** What one check's scenarios are driven and judged with. */
export interface CheckContext {
  options: CheckOptions;
  target: Target;
  api: MockApiClient;
  timing: Timing;
  mapping: Mapping;
  identity: Record<string, unknown> | null;
  note(message: string): void;
  onEvidence?: (scenario: Scenario, evidence: Evidence) => void;
  /** Where the stimuli's runs are found (n8n with an API key, the reference host); none: not looked for. */
  runs?: RunSource | undefined;
}

/** The scenario as the checker drives it: its facts, its alert, its wait and when its evidence is enough. */
export interface CheckDrive {
  scenario: Scenario;
  facts: Facts;
  alert: Record<string, unknown>;
  sitOutMs: number;
  done: DriverScenario['done'];
}

/**
 * Drives the scenario, the follow-up (the alert delivered again, or the rollback payload the mapping fills)
 * sent once the first run finished; the evidence, with the state read. Throws NotListening (the check
 * stops) or CheckSetupError (nothing can be judged).
 */
export async function driveForCheck(
  ctx: CheckContext,
  { scenario, facts, alert, sitOutMs, done }: CheckDrive,
): Promise<DriverEvidence & { state: StateReading }> {
  const options = driverOptions(ctx, scenario);
  const { webhookPath, rollbackPath } = ctx.options;
  const followUp =
    scenario.followUp === undefined
      ? undefined
      : scenario.followUp === 'deliver_again'
        ? { path: webhookPath, payload: alert }
        : {
            path: rollbackPath,
            payload: fillTemplate(ctx.mapping.rollback_payload, {
              event_id: facts.eventId,
              source_ip: facts.sourceIp,
            }),
          };
  const driven = await driveScenario(options, {
    facts,
    setup: scenario.setup,
    approver: scenario.approver,
    alertPath: webhookPath,
    alert,
    followUp: followUp === undefined ? undefined : { ...followUp, firstRunFinished },
    sitOutMs,
    done,
  });
  // A preparation the mock API refused: the one line of a setup error.
  if ('refusal' in driven) {
    const { request, status, body } = driven.refusal;
    throw new CheckSetupError(
      request === 'GET /health'
        ? `GET /health does not report case_mode healthy: ${JSON.stringify(body)}`
        : `${request} answered ${status}`,
    );
  }
  const { state } = driven.evidence;
  if (state === null) throw new CheckSetupError('GET /state never answered a state');
  return { ...driven.evidence, state };
}

function driverOptions(ctx: CheckContext, scenario: Scenario): DriverOptions {
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
      const stopped: Stopped = {
        stage: kind === 'alert' ? 'webhook' : 'rollback',
        path,
        message: notListeningMessage(kind, path),
      };
      throw new NotListening(stopped, stoppedResult(scenario, stopped));
    },
    answers: 'every request',
    decision: (approver, facts) => fillTemplate(ctx.mapping.approval[approver], { approver: facts.approver }),
    unfinishedFirstRun: 'go on',
    runs: ctx.runs,
  };
}

/** The one result a stopped check records: the webhook (or rollback) line, failed with the one line. */
function stoppedResult(scenario: Scenario, stopped: Stopped): ExpectationResult {
  return {
    stage: stopped.stage,
    stimulus: scenario.stimulus,
    expectation:
      stopped.stage === 'webhook'
        ? webhookAccepts.text
        : `a workflow listens on POST /webhook/${stopped.path}`,
    status: 'fail',
    hint: stopped.message,
    detail: gap(`POST /webhook/${stopped.path}`, 'a workflow listening', 'answered 404'),
    at: new Date().toISOString(),
    run: null,
  };
}
