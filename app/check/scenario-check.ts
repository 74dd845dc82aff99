/**
 * One scenario of the checker: driven by the lab's scenario driver (app/driver/scenario-driver.ts) and judged
 * by its expectations once the journal is quiet. A webhook path nothing listens on stops the whole check
 * (NotListening) with one line.
 */
import { randomUUID } from 'node:crypto';
import type { ExpectationResult, Stopped } from '../check-report/report.js';
import {
  type DriverEvidence,
  type DriverOptions,
  driveScenario,
  isOk,
  type Refusal,
  type SentStimulus,
} from '../driver/scenario-driver.js';
import type { Timing } from '../driver/timing.js';
import { fillTemplate, type Mapping } from '../judges/mapping.js';
import { pointAt, type RunKnowledge } from '../judges/run-pointer.js';
import {
  type Evidence,
  type ExecutionFinding,
  type Facts,
  firstRunFinished,
  gap,
  MAPPED_FIELDS,
  type Marks,
  type Outcome,
  type Scenario,
  webhookAccepts,
} from '../judges/scenarios.js';
import type { MockApiClient } from '../mock-api-client/client.js';
import type { StateReading } from '../mock-api-client/readings.js';
import { missingFields } from '../n8n/executions.js';
import { hasEnded, type RunLookup, type RunSource } from '../runs/run.js';
import { STAGE_NAMES } from '../stages/stages.js';
import { SetupError } from '../targets/session.js';
import type { Target } from '../targets/targets.js';
import { LAB_ADDRESS, LAB_USER } from '../workflow/scenario.js';
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
  /** Where the stimuli's runs are found (n8n with an API key, the reference host); none: not looked for. */
  runs?: RunSource | undefined;
}

/** Where one scenario's time went, in milliseconds (--timings). */
export interface ScenarioTimings {
  reset: number;
  trigger: number;
  /** n8n's run, from the alert's answer until it was seen ended; null: not seen ended. */
  run: number | null;
  settle: number;
  /** The run's look-up after the wait (its node data, for the pointer and the Webhook stage). */
  lookup: number;
  total: number;
}

/** Drives a scenario, then judges each of its expectations on the evidence. */
export async function checkScenario(
  ctx: CheckContext,
  scenario: Scenario,
): Promise<{ results: ExpectationResult[]; timings: ScenarioTimings | null }> {
  const began = performance.now();
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

  const judged = judgedStimulus(driven.evidence);
  const lookupBegan = performance.now();
  const lookup = await lookUpRun(ctx, facts.eventId, driven.evidence.sent, judged);
  const lookupMs = performance.now() - lookupBegan;
  const knowledge: RunKnowledge =
    ctx.runs === undefined
      ? { kind: 'unknown' }
      : lookup === undefined
        ? { kind: 'not-sent' }
        : {
            kind: 'looked',
            lookup,
            phaseSeconds: ctx.timing.phaseTimeoutMs / 1000,
            atPhaseEnd:
              driven.evidence.ranOut && judged !== undefined
                ? { status: judged.status, decided: isOk(marks.resumeStatus) }
                : null,
          };
  let execution: ExecutionFinding | undefined;
  if (scenario.expectations.some((x) => x.stage === 'webhook') && isOk(marks.trigger.status)) {
    const sent = Object.fromEntries(MAPPED_FIELDS.map((f) => [f, alert[f]]));
    execution =
      ctx.options.target === 'n8n' && lookup !== undefined ? findingOf(lookup, sent) : { kind: 'no-key' };
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
  const results = scenario.expectations.map((x, i): ExpectationResult => {
    const judged = outcomes[i] ?? {
      status: 'fail' as const,
      hint: 'not judged',
      detail: gap(x.text, 'a verdict', 'none'),
    };
    const { outcome, run } = pointAt(x, judged, knowledge, {
      webhookPath: ctx.options.webhookPath,
      execution,
    });
    return {
      stage: x.stage,
      stimulus: scenario.stimulus,
      expectation: x.text,
      status: outcome.status,
      hint: outcome.status === 'pass' ? null : (outcome.hint ?? null),
      detail: outcome.status === 'pass' ? null : (outcome.detail ?? null),
      at,
      run,
    };
  });
  await stopLeftovers(ctx, driven.evidence);
  const t = driven.evidence.timings;
  return {
    results,
    timings: { ...t, lookup: lookupMs, total: performance.now() - began },
  };
}

/**
 * A run still going (waiting for an approval nobody will give, late on a busy host) must not write into the
 * next stimulus's state: every run of the scenario's workflows that still runs or waits is stopped, and an
 * n8n too busy to answer is asked again (up to a phase) before the next stimulus resets the mock API; a run
 * n8n would not stop that still runs is waited for (up to the same phase).
 */
async function stopLeftovers(ctx: CheckContext, { sent }: DriverEvidence): Promise<void> {
  const first = sent[0];
  if (ctx.runs === undefined || first === undefined) return;
  const deadline = performance.now() + ctx.timing.phaseTimeoutMs;
  for (const path of new Set(sent.map((s) => s.path))) {
    while (!(await ctx.runs.stop(path, first.sentAt)) && performance.now() < deadline) {
      ctx.note('n8n did not answer a stop of a stimulus’s run at once; it was asked again');
      await sleep(ctx.timing.pollMs);
    }
  }
  // A key that may not stop runs (no execution:stop scope): a run still going is waited for instead.
  for (const stimulus of sent) {
    if (stimulus.runId === null) continue;
    let status = stimulus.status;
    while ((status === 'new' || status === 'running') && performance.now() < deadline) {
      await sleep(ctx.timing.pollMs);
      status = (await ctx.runs.status(stimulus.runId)) ?? status;
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The stimulus the verdict is about: the first delivery's when its run never finished (the follow-up was then
 * not sent, or its expectations hang on the first), else the last one's; undefined when none was accepted.
 */
function judgedStimulus({ sent, marks }: DriverEvidence): SentStimulus | undefined {
  return marks.firstRunDone === false ? sent[0] : sent.at(-1);
}

/**
 * The run of the judged stimulus, with its node data. Undefined when nothing was looked up: no run source, or
 * no stimulus accepted.
 */
async function lookUpRun(
  ctx: CheckContext,
  eventId: string,
  sent: readonly SentStimulus[],
  stimulus: SentStimulus | undefined,
): Promise<RunLookup | undefined> {
  if (ctx.runs === undefined || stimulus === undefined) return undefined;
  // Found already ended while the driver waited: its data then was its last, and is not asked for again.
  if (stimulus.found !== null && hasEnded(stimulus.found.status))
    return { kind: 'found', run: stimulus.found };
  const exclude = sent.flatMap((s) => (s !== stimulus && s.runId !== null ? [s.runId] : []));
  const lookup = await ctx.runs.find({ eventId, path: stimulus.path, sentAt: stimulus.sentAt, exclude });
  // n8n gave no answer now (busy), but found the run while the driver waited: that run, as last seen.
  if (lookup.kind !== 'found' && stimulus.found !== null)
    return { kind: 'found', run: { ...stimulus.found, status: stimulus.status ?? stimulus.found.status } };
  return lookup;
}

/** The Webhook stage's execution-data judgement, from the run found. */
function findingOf(lookup: RunLookup, sent: Record<string, unknown>): ExecutionFinding {
  switch (lookup.kind) {
    case 'found':
      return {
        kind: 'found',
        executionId: lookup.run.id,
        missing: missingFields(
          lookup.run.nodes.map((n) => n.output),
          sent,
        ),
      };
    case 'none':
      return { kind: 'not-found', detail: 'no execution carries the event_id' };
    case 'unreachable':
      return { kind: 'error', detail: lookup.detail };
  }
}

/**
 * The checker's way of driving (app/driver/scenario-driver.ts): a trigger's 404 retried briefly, then the
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
    runs: ctx.runs,
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
    detail: gap(
      `POST /webhook/${path}`,
      'a 2xx answer',
      trigger.status === null ? `none (${trigger.error ?? 'not sent'})` : String(trigger.status),
    ),
  };
}
