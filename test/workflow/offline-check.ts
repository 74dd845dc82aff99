/**
 * `check STAGE=<stage>` judged offline: the workflows run in the simulator of ./n8n-sim.ts, every request
 * they make is answered by the real mock API in process (createApp), and the checker's own scenarios and
 * expectations (app/check/scenarios.ts) judge the mock API's state, as the checker's driver does on a lab.
 * What the offline run cannot see: n8n's execution data (the Webhook stage's field check is unjudged, as
 * without an API key) and real timing.
 */
import { createApp, defaultDeps } from '../../app/api/app.js';
import { approvalRequests } from '../../app/check/expectations.js';
import { DEFAULT_MAPPING, fillTemplate } from '../../app/check/mapping.js';
import {
  type Evidence,
  type Facts,
  firstRunFinished,
  type Marks,
  type Scenario,
  scenariosFor,
  stagesUpTo,
} from '../../app/check/scenarios.js';
import {
  IdentityReadingSchema,
  type StateReading,
  StateReadingSchema,
} from '../../app/mock-api-client/readings.js';
import type { StageName } from '../../app/stages/stages.js';
import { LAB_ADDRESS, LAB_USER } from '../../app/workflow/scenario.js';
import type { N8nWorkflow } from './checks.js';
import { type ApiAnswer, type ApiCall, type SimRun, simulate } from './n8n-sim.js';

const NOW = '2026-11-23T04:00:00.000Z';

type MockApi = ReturnType<typeof createApp>;

/** One request to the in-process mock API, answered as n8n's HTTP Request node reads it. */
async function ask(api: MockApi, method: string, path: string, body?: unknown): Promise<ApiAnswer> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    // The mock API refuses a body without its length (n8n sends one).
    init.body = JSON.stringify(body);
    init.headers = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(init.body)),
    };
  }
  const answer = await api.request(path, init);
  const text = await answer.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: answer.status, body: parsed };
}

async function stateOf(api: MockApi): Promise<StateReading> {
  return StateReadingSchema.parse((await ask(api, 'GET', '/state')).body);
}

/**
 * One run of `workflow` on `payload`, its requests answered by `api`. The simulator is synchronous and the
 * mock API is not: the run is simulated again from the start with every answer known so far, and the
 * first request without one is sent to the mock API (once, in order), until the run needs no new answer.
 * `onRequest` sees the state after each request that was sent.
 */
async function runOn(
  api: MockApi,
  workflow: N8nWorkflow,
  payload: unknown,
  approval: { body: unknown } | 'timeout',
  onRequest: (call: ApiCall, state: StateReading) => void,
): Promise<SimRun> {
  const sent: ApiCall[] = [];
  const answers: ApiAnswer[] = [];
  for (;;) {
    let asked = 0;
    const drifts: string[] = [];
    const run = simulate(
      workflow,
      payload,
      {
        api: (call) => {
          const known = answers[asked];
          if (known === undefined) throw new Error('not answered yet');
          if (JSON.stringify(call) !== JSON.stringify(sent[asked])) {
            drifts.push(`the run changed: ${call.method} ${call.path} as request ${asked + 1}`);
          }
          asked += 1;
          return known;
        },
        approval,
      },
      { now: NOW },
    );
    if (drifts.length > 0) throw new Error(drifts.join('; '));
    const next = run.calls[answers.length];
    if (next === undefined) return run;
    sent.push(next);
    answers.push(await ask(api, next.method, next.path, next.body));
    onRequest(next, await stateOf(api));
  }
}

/** Whether the run stopped at a Wait node that resumes on a webhook call (n8n then takes the resume URL). */
function waitedForApproval(workflow: N8nWorkflow, run: SimRun): boolean {
  return workflow.nodes.some(
    (n) => n.type === 'n8n-nodes-base.wait' && n.parameters.resume === 'webhook' && run.path.includes(n.name),
  );
}

/**
 * One of the checker's scenarios on the workflows, as app/check/scenario-check.ts plays it: a fresh mock API
 * (reset, healthy, the scenario's setup), the alert, the approver's answer, the follow-up; then every
 * expectation judged on the final state. A resume URL answers 200 when the run waited for it, else 404
 * (n8n: no waiting execution).
 */
async function playScenario(
  scenario: Scenario,
  [response, rollback]: readonly N8nWorkflow[],
): Promise<string[]> {
  if (response === undefined) throw new Error('no response workflow');
  const api = createApp(defaultDeps());
  // Read before the reset, as the checker does: the reset clears the journal of this request.
  const identity = IdentityReadingSchema.parse((await ask(api, 'GET', `/identity/${LAB_USER}`)).body);
  const setup = [await ask(api, 'POST', '/reset', {})];
  if (scenario.setup === 'fail_next_write') {
    setup.push(await ask(api, 'POST', '/control/case-mode', { mode: 'fail_next_write' }));
  }
  if (setup.some((a) => a.status !== 200)) throw new Error(`setup refused: ${JSON.stringify(setup)}`);
  const facts: Facts = {
    eventId: `evt-chk-${scenario.id}-offline`,
    user: scenario.user === 'lab' ? LAB_USER : 'nobody-offline',
    sourceIp: LAB_ADDRESS,
    approver: 'approver-offline',
  };
  const marks: Marks = {
    trigger: { status: 200, error: null },
    atApprovalRequest: null,
    resumeStatus: null,
    firstRunDone: null,
    followUpSeq: null,
    followUpTrigger: null,
  };
  const approval =
    scenario.approver === 'silent'
      ? ('timeout' as const)
      : { body: fillTemplate(DEFAULT_MAPPING.approval[scenario.approver], { approver: facts.approver }) };
  const onRequest = (_call: ApiCall, state: StateReading) => {
    if (marks.atApprovalRequest === null && approvalRequests(state).length > 0)
      marks.atApprovalRequest = state;
  };
  const alert = scenario.alert(facts);
  const first = await runOn(api, response, alert, approval, onRequest);
  if (scenario.approver !== 'silent' && marks.atApprovalRequest !== null) {
    marks.resumeStatus = waitedForApproval(response, first) ? 200 : 404;
  }
  if (scenario.followUp !== undefined) {
    const after = await stateOf(api);
    marks.firstRunDone = firstRunFinished(after);
    if (marks.firstRunDone) {
      marks.followUpSeq = after.journal.at(-1)?.seq ?? 0;
      const [workflow, payload] =
        scenario.followUp === 'deliver_again'
          ? [response, alert]
          : [
              rollback,
              fillTemplate(DEFAULT_MAPPING.rollback_payload, {
                event_id: facts.eventId,
                source_ip: facts.sourceIp,
              }),
            ];
      // Nothing listens on the rollback's path without a rollback workflow: n8n answers 404.
      marks.followUpTrigger = { status: workflow === undefined ? 404 : 200, error: null };
      if (workflow !== undefined) await runOn(api, workflow, payload, approval, onRequest);
    }
  }
  const evidence: Evidence = {
    state: await stateOf(api),
    facts,
    marks,
    mapping: DEFAULT_MAPPING,
    identity,
    execution: { kind: 'no-key' },
    webhookPath: 'suspicious-login',
    rollbackPath: 'suspicious-login-rollback',
  };
  return scenario.expectations.flatMap((x) => {
    const outcome = x.judge(evidence);
    return outcome.status === 'fail'
      ? [`${x.stage}: ${scenario.stimulus}: ${x.text}: ${outcome.hint ?? ''}`]
      : [];
  });
}

/** `check STAGE=<stage>` offline: every failed expectation of the stages up to `stage`, one line each. */
export async function checkOffline(
  stage: StageName | 'all',
  workflows: readonly N8nWorkflow[],
): Promise<string[]> {
  const failed: string[] = [];
  for (const scenario of scenariosFor(stagesUpTo(stage))) {
    failed.push(...(await playScenario(scenario, workflows)));
  }
  return failed;
}
