/**
 * A checked scenario's verdicts: each expectation's outcome as the report's result, pointed at its run; an
 * alert that never reached the workflow fails every expectation but the Webhook stage's own, saying so.
 */
import type { ExpectationResult } from '../check-report/report.js';
import { pointAt, type RunKnowledge } from '../judges/run-pointer.js';
import { type ExecutionFinding, gap, type Marks, type Outcome, type Scenario } from '../judges/scenarios.js';

/** The outcome of an expectation whose alert never reached the workflow (its POST failed or was refused). */
export function neverArrived(path: string, trigger: Marks['trigger']): Outcome {
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

/** The scenario's results, one an expectation in its order, each with what the run pointer says of it. */
export function resultsOf(
  scenario: Scenario,
  outcomes: readonly Outcome[],
  knowledge: RunKnowledge,
  where: { webhookPath: string; execution: ExecutionFinding | undefined },
): ExpectationResult[] {
  const at = new Date().toISOString();
  return scenario.expectations.map((x, i): ExpectationResult => {
    const judged = outcomes[i] ?? {
      status: 'fail' as const,
      hint: 'not judged',
      detail: gap(x.text, 'a verdict', 'none'),
    };
    const { outcome, run } = pointAt(x, judged, knowledge, where);
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
}
