/**
 * One scenario of the checker, its sequence from top to bottom: driven (./drive.ts, on the lab's scenario
 * driver), its judged run looked up (./run-lookup.ts), judged by its expectations once the journal is quiet
 * (./verdicts.ts), its runs still going stopped (app/driver/leftovers.ts). A webhook path nothing listens on stops the whole check
 * (NotListening, ./drive.ts) with one line.
 */
import { randomUUID } from 'node:crypto';
import type { ExpectationResult } from '../check-report/report.js';
import { stopLeftovers } from '../driver/leftovers.js';
import { isOk } from '../driver/scenario-driver.js';
import {
  type Evidence,
  type ExecutionFinding,
  type Facts,
  MAPPED_FIELDS,
  type Marks,
  type Outcome,
  type Scenario,
  webhookAccepts,
} from '../judges/scenarios.js';
import type { StateReading } from '../mock-api-client/readings.js';
import { STAGE_NAMES } from '../stages/stages.js';
import { LAB_ADDRESS, LAB_USER } from '../workflow/scenario.js';
import { type CheckContext, driveForCheck } from './drive.js';
import { findingOf, lookUpJudgedRun } from './run-lookup.js';
import type { ScenarioTimings } from './timings.js';
import { neverArrived, resultsOf } from './verdicts.js';

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
  const driven = await driveForCheck(ctx, {
    scenario,
    facts,
    alert,
    sitOutMs: ctx.target.approvalTimeoutSeconds * 1000 + (judgesRecord ? 0 : ctx.timing.approvalLatenessMs),
    done: (state, marks) => judgeAll(evidence(state, marks)).every((o) => o.status !== 'fail'),
  });
  const { marks, state } = driven;

  const { lookup, knowledge, lookupMs } = await lookUpJudgedRun(ctx.runs, facts.eventId, driven, ctx.timing);
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
  const results = resultsOf(scenario, outcomes, knowledge, {
    webhookPath: ctx.options.webhookPath,
    execution,
  });
  await stopLeftovers(ctx.runs, ctx.timing, ctx.note, driven);
  return {
    results,
    timings: { ...driven.timings, lookup: lookupMs, total: performance.now() - began },
  };
}
