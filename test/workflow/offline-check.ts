/**
 * `check STAGE=<stage>` judged offline: the workflows run in the simulator (app/simulator/engine.ts), every
 * request they make is answered by the real mock API in process (createApp), and the checker's own
 * scenarios and expectations (app/judges/scenarios.ts) judge the mock API's state, as the checker's driver
 * does on a lab. What the offline run cannot see: n8n's execution data (the Webhook stage's field check is
 * unjudged, as without an API key) and real timing (a Wait's pause takes no time).
 */
import { createApp, defaultDeps } from '../../app/api/app.js';
import { approvalRequests } from '../../app/judges/expectations.js';
import { DEFAULT_MAPPING, fillTemplate } from '../../app/judges/mapping.js';
import {
  type Evidence,
  type Facts,
  firstRunFinished,
  type Marks,
  type Scenario,
  scenariosFor,
  stagesUpTo,
} from '../../app/judges/scenarios.js';
import { resumeUrlIn } from '../../app/judging/approval-request.js';
import {
  IdentityReadingSchema,
  type StateReading,
  StateReadingSchema,
} from '../../app/mock-api-client/readings.js';
import {
  type HttpAnswer,
  type HttpCall,
  type NodeStep,
  type Resume,
  type RunIo,
  runWorkflow,
  type SimRun,
} from '../../app/simulator/engine.js';
import type { StageName } from '../../app/stages/stages.js';
import type { N8nExport } from '../../app/workflow/export.js';
import { LAB_ADDRESS, LAB_USER } from '../../app/workflow/scenario.js';

/** The runs' clock: every `new Date()` of their code. */
export const NOW = Date.parse('2026-11-23T04:00:00.000Z');
/** `$env` of the runs: the mock API's base URL (no socket behind it) and the approval limit. */
export const OFFLINE_ENV = { MOCK_API_URL: 'http://mock-api.offline', APPROVAL_TIMEOUT_SECONDS: '60' };
/** `$execution.resumeUrl` of run `n`, as n8n signs it. */
export const offlineResumeUrl = (n = 1) =>
  `http://n8n.offline/webhook-waiting/${n}?signature=${'0a'.repeat(32)}`;

export type MockApi = ReturnType<typeof createApp>;

/** A mock API of its own, on the real clock or `realNow`. */
export const freshMockApi = (realNow?: () => number): MockApi =>
  createApp(defaultDeps(realNow === undefined ? {} : { realNow }));

/** One request to the in-process mock API, its body read as n8n's HTTP Request node reads it. */
export async function ask(api: MockApi, method: string, path: string, body?: unknown): Promise<HttpAnswer> {
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
  try {
    return { status: answer.status, body: JSON.parse(text) };
  } catch {
    return { status: answer.status, body: text };
  }
}

export async function stateOf(api: MockApi): Promise<StateReading> {
  return StateReadingSchema.parse((await ask(api, 'GET', '/state')).body);
}

export interface OfflineWorld {
  /** The run's number: its resume URL. */
  run?: number;
  /** The run's clock (ms since the epoch); NOW when left out. */
  now?: number;
  /** What the run's Wait for a webhook call gets. */
  resume(): Promise<Resume>;
  /** After each request the mock API answered (a test's other party acts here). */
  afterRequest?(call: HttpCall, path: string): Promise<void>;
  onNode?(step: NodeStep): void;
}

/**
 * A run's world on `api`: a request to `$env.MOCK_API_URL` goes to it, any other address is the request's
 * error (the lab's n8n reaches nothing else either); a pause takes no time.
 */
export function mockApiIo(api: MockApi, world: OfflineWorld): RunIo {
  const base = `${OFFLINE_ENV.MOCK_API_URL}/`;
  return {
    env: OFFLINE_ENV,
    resumeUrl: offlineResumeUrl(world.run),
    now: () => world.now ?? NOW,
    async request(call) {
      if (!call.url.startsWith(base)) throw new Error(`${call.url}: offline, only the mock API answers`);
      const path = call.url.slice(base.length - 1);
      const answer = await ask(api, call.method, path, call.body);
      await world.afterRequest?.(call, path);
      return answer;
    },
    waitForResume: () => world.resume(),
    sleep: async () => {},
    ...(world.onNode ? { onNode: world.onNode } : {}),
  };
}

/** Sees every node of every run of a check: which workflow ran it, and how it ended. */
export type StepWatcher = (workflow: N8nExport, step: NodeStep) => void;

/**
 * One of the checker's scenarios on the workflows, as app/check/scenario-check.ts plays it: a fresh mock API
 * (reset, healthy, the scenario's setup), the alert, the approver's answer, the follow-up; then every
 * expectation judged on the final state. The approver answers each approval request's resume URL once
 * (app/driver/scenario-driver.ts): a run waiting at a Wait node is resumed when that is its own URL; a
 * resume URL nothing waits on answers 404 (n8n: no waiting execution).
 */
async function playScenario(
  scenario: Scenario,
  [response, rollback]: readonly N8nExport[],
  watch: StepWatcher,
): Promise<string[]> {
  if (response === undefined) throw new Error('no response workflow');
  const api = freshMockApi();
  // Read before the reset, as the checker does: the reset clears the journal of this request.
  const identity = IdentityReadingSchema.parse((await ask(api, 'GET', `/identity/${LAB_USER}`)).body);
  const setup = [await ask(api, 'POST', '/reset', {})];
  if (scenario.setup === 'fail_next_write')
    setup.push(await ask(api, 'POST', '/control/case-mode', { mode: 'fail_next_write' }));
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
  // The resume URLs of the approval requests seen, each true once answered.
  const asked = new Map<string, boolean>();
  const answer = (url: string, status: number) => {
    asked.set(url, true);
    if (scenario.approver !== 'silent') marks.resumeStatus ??= status;
  };
  /** The approval requests no run waited for: the approver's POST finds no waiting execution. */
  const answerTheRest = () => {
    for (const [url, answered] of asked) if (!answered) answer(url, 404);
  };
  let runs = 0;
  const run = (workflow: N8nExport, payload: unknown): Promise<SimRun> => {
    runs += 1;
    const own = offlineResumeUrl(runs);
    return runWorkflow(
      workflow,
      { headers: { 'content-type': 'application/json' }, body: payload },
      mockApiIo(api, {
        run: runs,
        async afterRequest() {
          const state = await stateOf(api);
          for (const request of approvalRequests(state)) {
            const url = resumeUrlIn(request);
            if (url === undefined || asked.has(url)) continue;
            marks.atApprovalRequest ??= state;
            asked.set(url, false);
          }
        },
        async resume() {
          if (scenario.approver === 'silent' || asked.get(own) !== false) return 'timeout';
          answer(own, 200);
          const body = fillTemplate(DEFAULT_MAPPING.approval[scenario.approver], {
            approver: facts.approver,
          });
          return { headers: { 'content-type': 'application/json' }, body };
        },
        onNode: (step) => watch(workflow, step),
      }),
    );
  };
  const alert = scenario.alert(facts);
  await run(response, alert);
  answerTheRest();
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
      if (workflow !== undefined) await run(workflow, payload);
      answerTheRest();
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

/**
 * `check STAGE=<stage>` offline: every failed expectation of the stages up to `stage`, one line each.
 * `watch` sees every node the scenarios' runs go through.
 */
export async function checkOffline(
  stage: StageName | 'all',
  workflows: readonly N8nExport[],
  watch: StepWatcher = () => {},
): Promise<string[]> {
  const failed: string[] = [];
  for (const scenario of scenariosFor(stagesUpTo(stage))) {
    failed.push(...(await playScenario(scenario, workflows, watch)));
  }
  return failed;
}
