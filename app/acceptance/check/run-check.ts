/**
 * One stage check: set up the transport and the target, run the scenarios that the requested stages
 * need, judge each expectation, print one line per expectation (a hint under every failure), write
 * reports/check-last.json, and tear down everything it started. The CLI is a thin shell around this.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { resumeUrlIn } from '../../lab/approval-request.js';
import type { MockApiClient } from '../../lab/mock-api.js';
import { webhookUrl } from '../../lab/webhook-path.js';
import { LAB_ADDRESS, LAB_USER } from '../../workflow/scenario.js';
import { HealthSchema, type State } from '../api-schemas.js';
import type { LocalMockApi } from '../mock-api-server.js';
import { type Output, openMockApi } from '../run-acceptance.js';
import {
  postResume,
  postTrigger,
  readState,
  rewriteOrigin,
  type Timing,
  waitUntilSettled,
} from '../runner.js';
import { n8nTarget, startReferenceTarget, type Target } from '../targets.js';
import { fillTemplate, loadMapping, type Mapping } from './mapping.js';
import { findExecutionFields } from './n8n-executions.js';
import type { CheckOptions } from './options.js';
import {
  type CheckReport,
  CheckReportSchema,
  type ExpectationResult,
  STAGE_NAMES,
  type StageName,
  type StageResult,
  type Stopped,
} from './report-schema.js';
import {
  type Evidence,
  type ExecutionFinding,
  type Facts,
  firstRunFinished,
  MAPPED_FIELDS,
  type Marks,
  type Outcome,
  type Scenario,
  scenariosFor,
  stagesUpTo,
  webhookAccepts,
} from './scenarios.js';

/** In process a run takes milliseconds; the phase limit only bounds how long a failing expectation waits. */
export const CHECK_REFERENCE_TIMING: Timing = {
  pollMs: 50,
  settleMs: 250,
  phaseTimeoutMs: 3_000,
  approvalLatenessMs: 1_000,
};

/** n8n: runs start within a second; Wait time limits fire up to ~60 s late (checked once a minute). */
export const CHECK_N8N_TIMING: Timing = {
  pollMs: 500,
  settleMs: 2_000,
  phaseTimeoutMs: 30_000,
  approvalLatenessMs: 75_000,
};

export interface CheckHooks {
  /** Starts the reference target; the tests pass broken variants of the reference workflow here. */
  startReference?: typeof startReferenceTarget;
  /** Replaces the timing of the target (tests). */
  timing?: Timing;
  /** Sees each scenario's final evidence (tests spoil it to show each expectation can fail). */
  onEvidence?: (scenario: Scenario, evidence: Evidence) => void;
}

/** A setup problem (mock API not reachable, reset refused): the check cannot judge anything. */
export class CheckSetupError extends Error {
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

export async function runCheck(
  options: CheckOptions,
  output: Output,
  hooks: CheckHooks = {},
): Promise<CheckReport> {
  const startedAt = new Date();
  const mapping = await loadMapping(options.mappingPath);
  let localApi: LocalMockApi | undefined;
  let target: Target | undefined;
  let client: MockApiClient | undefined;
  try {
    const opened = await openMockApi(options.api);
    const { api, mockApiUrl } = opened;
    client = api;
    localApi = opened.localApi;
    if (options.target === 'reference') {
      if (mockApiUrl === undefined)
        throw new CheckSetupError('the reference target needs the mock API over HTTP');
      target = await (hooks.startReference ?? startReferenceTarget)({
        mockApiUrl,
        approvalTimeoutSeconds: options.approvalTimeoutSeconds,
        ...(options.verbose ? { log: output.err } : {}),
      });
    } else {
      target = n8nTarget({ n8nUrl: options.n8nUrl, approvalTimeoutSeconds: options.approvalTimeoutSeconds });
    }
    const timing =
      hooks.timing ?? (options.target === 'reference' ? CHECK_REFERENCE_TIMING : CHECK_N8N_TIMING);
    const stages = options.only && options.stage !== 'all' ? [options.stage] : stagesUpTo(options.stage);
    const scenarios = scenariosFor(stages);
    const notes: string[] = [];
    const note = (message: string) => {
      if (!notes.includes(message)) notes.push(message);
    };
    if (stages.includes('webhook') && options.target === 'n8n' && options.apiKey === undefined) {
      note('no N8N_API_KEY: the Webhook stage’s execution data is judged from the next stage');
    }

    output.out(
      `check: stages ${stages[0]}..${stages.at(-1)} on ${target.name} at ${target.workflowUrl}, mock API ${api.describe}; ` +
        `${scenarios.length} stimuli`,
    );
    const identity = await labIdentity(api);
    const driver = new Driver({
      options,
      target,
      api,
      timing,
      mapping,
      identity,
      note,
      ...(hooks.onEvidence ? { onEvidence: hooks.onEvidence } : {}),
    });
    const results: ExpectationResult[] = [];
    let stopped: Stopped | null = null;
    for (const scenario of scenarios) {
      const began = performance.now();
      try {
        results.push(...(await driver.run(scenario)));
      } catch (error) {
        if (!(error instanceof NotListening)) throw error;
        stopped = error.stopped;
        results.push(stoppedResult(scenario, stopped));
        break;
      } finally {
        await target.afterCase?.();
      }
      output.err(`  ${scenario.stimulus} (${((performance.now() - began) / 1000).toFixed(1)} s)`);
    }

    const ordered = stages.flatMap((stage) => results.filter((r) => r.stage === stage));
    // A stopped check reports the stages it reached; the rest were never judged.
    const judged = stopped === null ? stages : stages.filter((s) => ordered.some((r) => r.stage === s));
    const stageResults = judged.map((stage) => summarize(stage, ordered));
    const finishedAt = new Date();
    const report = CheckReportSchema.parse({
      kind: 'stage-check',
      requested: options.stage,
      target: target.name,
      workflow_url: target.workflowUrl,
      api: api.describe,
      started_at: startedAt.toISOString(),
      finished_at: finishedAt.toISOString(),
      seconds: Math.round(finishedAt.getTime() - startedAt.getTime()) / 1000,
      passed: stopped === null && stageResults.every((s) => s.status === 'pass'),
      stages: stageResults,
      results: ordered,
      notes,
      stopped,
    });
    await mkdir(dirname(options.reportPath), { recursive: true });
    await writeFile(options.reportPath, `${JSON.stringify(report, null, 2)}\n`);
    if (stopped !== null) {
      output.err(`check: ${stopped.message}`);
      return report;
    }
    output.out(formatResults(report));
    output.out(`results: ${options.reportPath}`);
    return report;
  } finally {
    client?.close();
    await target?.close();
    await localApi?.close();
  }
}

/** The lab user's identity, read before the first reset, to recognise it in a case later. */
async function labIdentity(api: MockApiClient): Promise<Record<string, unknown> | null> {
  try {
    const answer = await api.request('GET', `/identity/${LAB_USER}`);
    return answer.status === 200 &&
      typeof answer.body === 'object' &&
      answer.body !== null &&
      !Array.isArray(answer.body)
      ? Object.fromEntries(Object.entries(answer.body))
      : null;
  } catch (error) {
    throw new CheckSetupError(
      `the mock API (${api.describe}) cannot be reached: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

interface DriverContext {
  options: CheckOptions;
  target: Target;
  api: MockApiClient;
  timing: Timing;
  mapping: Mapping;
  identity: Record<string, unknown> | null;
  note(message: string): void;
  onEvidence?: CheckHooks['onEvidence'];
}

/** Sends a scenario's stimuli, answers approvals as the scenario says, and judges when the journal is quiet. */
class Driver {
  constructor(readonly ctx: DriverContext) {}

  async run(scenario: Scenario): Promise<ExpectationResult[]> {
    const { ctx } = this;
    const suffix = randomUUID().slice(0, 8);
    const facts: Facts = {
      eventId: `evt-chk-${scenario.id}-${suffix}`,
      user: scenario.user === 'lab' ? LAB_USER : `nobody-${suffix}`,
      sourceIp: LAB_ADDRESS,
      approver: `approver-${suffix}`,
    };
    const marks: Marks = {
      trigger: { status: null, error: null },
      atApprovalRequest: null,
      resumeStatus: null,
      firstRunDone: null,
      followUpSeq: null,
      followUpTrigger: null,
    };
    await this.prepare(scenario);
    const alert = scenario.alert(facts);
    marks.trigger = await this.send(ctx.options.webhookPath, alert);

    const answered = new Set<string>();
    let approvalSeenAt: number | null = null;
    const onState = async (state: State) => {
      for (const notification of state.notifications) {
        const url = resumeUrlIn(notification);
        if (url === undefined || answered.has(url)) continue;
        answered.add(url);
        if (marks.atApprovalRequest === null) {
          marks.atApprovalRequest = state;
          approvalSeenAt = performance.now();
        }
        if (scenario.approver === 'silent') continue;
        const body = fillTemplate(ctx.mapping.approval[scenario.approver], { approver: facts.approver });
        const status = await postResume(
          rewriteOrigin(url, ctx.options.resumeOrigin),
          body,
          ctx.timing,
          ctx.note,
        );
        marks.resumeStatus ??= status;
      }
    };
    const evidence = (state: State, execution?: ExecutionFinding): Evidence => ({
      state,
      facts,
      marks,
      mapping: ctx.mapping,
      identity: ctx.identity,
      execution,
      webhookPath: ctx.options.webhookPath,
      rollbackPath: ctx.options.rollbackPath,
    });
    const judgeAll = (state: State, execution?: ExecutionFinding): Outcome[] =>
      scenario.expectations.map((x) => x.judge(evidence(state, execution)));
    const readNow = () => readState(ctx.api, ctx.note);

    // A silent approver: the run must have had its approval time limit before "no block" means anything.
    const judgesRecord = scenario.expectations.some(
      (x) => STAGE_NAMES.indexOf(x.stage) >= STAGE_NAMES.indexOf('record'),
    );
    const limitMs =
      ctx.target.approvalTimeoutSeconds * 1000 + (judgesRecord ? 0 : ctx.timing.approvalLatenessMs);
    const ready = () =>
      scenario.approver !== 'silent' ||
      (approvalSeenAt !== null && performance.now() - approvalSeenAt >= limitMs);
    const deadline = () =>
      performance.now() +
      ctx.timing.phaseTimeoutMs +
      (scenario.approver === 'silent'
        ? ctx.target.approvalTimeoutSeconds * 1000 + ctx.timing.approvalLatenessMs
        : 0);

    let state: State | null = null;
    if (isOk(marks.trigger.status)) {
      if (scenario.followUp !== undefined) {
        const first = await waitUntilSettled({
          readState: readNow,
          onState,
          judge: (s) => ({ pass: firstRunFinished(s) }),
          timing: ctx.timing,
          deadline: deadline(),
        });
        marks.firstRunDone = first?.verdict.pass ?? false;
        if (first !== null && marks.firstRunDone) {
          marks.followUpSeq = first.state.journal.at(-1)?.seq ?? 0;
          marks.followUpTrigger =
            scenario.followUp === 'deliver_again'
              ? await this.send(ctx.options.webhookPath, alert)
              : await this.send(
                  ctx.options.rollbackPath,
                  fillTemplate(ctx.mapping.rollback_payload, {
                    event_id: facts.eventId,
                    source_ip: facts.sourceIp,
                  }),
                );
        }
      }
      // Nobody answers: sit out the time limit only once there is an approval request to time out.
      let silentLimitApplies = scenario.approver === 'silent';
      if (silentLimitApplies) {
        const asked = await waitUntilSettled({
          readState: readNow,
          onState,
          judge: () => ({ pass: approvalSeenAt !== null }),
          timing: { ...ctx.timing, settleMs: 0 },
          deadline: performance.now() + ctx.timing.phaseTimeoutMs,
        });
        silentLimitApplies = asked?.verdict.pass ?? false;
      }
      const settled = await waitUntilSettled({
        readState: readNow,
        onState,
        judge: (s) => ({
          pass: (!silentLimitApplies || ready()) && judgeAll(s).every((o) => o.status !== 'fail'),
        }),
        timing: ctx.timing,
        deadline: silentLimitApplies ? deadline() : performance.now() + ctx.timing.phaseTimeoutMs,
      });
      state = settled?.state ?? null;
    } else {
      state = await readNow();
    }
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
    this.ctx.onEvidence?.(scenario, evidence(state, execution));
    const outcomes = isOk(marks.trigger.status)
      ? judgeAll(state, execution)
      : scenario.expectations.map((x) =>
          x === webhookAccepts
            ? x.judge(evidence(state))
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
      };
    });
  }

  /** POST /reset, a healthy /health, then the scenario's own setup. */
  async prepare(scenario: Scenario): Promise<void> {
    const { api } = this.ctx;
    const reset = await api.request('POST', '/reset', {});
    if (reset.status !== 200) throw new CheckSetupError(`POST /reset answered ${reset.status}`);
    const health = await api.request('GET', '/health');
    const parsed = HealthSchema.safeParse(health.body);
    if (health.status !== 200 || !parsed.success || parsed.data.case_mode !== 'healthy') {
      throw new CheckSetupError(
        `GET /health does not report case_mode healthy: ${JSON.stringify(health.body)}`,
      );
    }
    if (scenario.setup === 'fail_next_write') {
      const mode = await api.request('POST', '/control/case-mode', { mode: 'fail_next_write' });
      if (mode.status !== 200) throw new CheckSetupError(`POST /control/case-mode answered ${mode.status}`);
    }
  }

  /** POSTs to a webhook; throws NotListening when it still answers 404 after the short retry. */
  async send(path: string, payload: unknown): Promise<{ status: number | null; error: string | null }> {
    const url = webhookUrl(this.ctx.target.workflowUrl, path);
    const timing = {
      ...this.ctx.timing,
      phaseTimeoutMs: Math.min(this.ctx.timing.phaseTimeoutMs, NOT_LISTENING_RETRY_MS),
    };
    let status: number;
    try {
      status = await postTrigger(url, payload, timing, this.ctx.note);
    } catch (error) {
      return { status: null, error: error instanceof Error ? error.message : String(error) };
    }
    if (status === 404) {
      const kind = path === this.ctx.options.rollbackPath ? 'rollback' : 'alert';
      throw new NotListening({
        stage: kind === 'alert' ? 'webhook' : 'rollback',
        path,
        message: notListeningMessage(kind, path),
      });
    }
    return { status, error: null };
  }
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
    detail: 'answered 404',
    at: new Date().toISOString(),
  };
}

function isOk(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}

function neverArrived(path: string, trigger: Marks['trigger']): Outcome {
  return {
    status: 'fail',
    hint: `the alert never reached the workflow: POST /webhook/${path} ${trigger.status === null ? 'could not be sent' : `answered ${trigger.status}`} (see the webhook stage)`,
    ...(trigger.error === null ? {} : { detail: trigger.error }),
  };
}

function summarize(stage: StageName, results: readonly ExpectationResult[]): StageResult {
  const own = results.filter((r) => r.stage === stage);
  const counts = {
    pass: own.filter((r) => r.status === 'pass').length,
    fail: own.filter((r) => r.status === 'fail').length,
    unjudged: own.filter((r) => r.status === 'unjudged').length,
  };
  return { stage, status: counts.fail > 0 ? 'fail' : 'pass', counts };
}

const LABEL = { pass: 'PASS', fail: 'FAIL', unjudged: 'UNJUDGED' } as const;

/** One line per expectation, grouped by stage; under a failure its hint, under an unjudged line why. */
export function formatResults(report: CheckReport): string {
  const width = Math.max(...STAGE_NAMES.map((s) => s.length));
  const lines: string[] = [];
  for (const result of report.results) {
    lines.push(
      `${LABEL[result.status].padEnd(8)}  ${result.stage.padEnd(width)}  ${result.stimulus}: ${result.expectation}`,
    );
    const indent = ' '.repeat(10 + width + 2);
    if (result.hint !== null)
      lines.push(`${indent}${result.status === 'fail' ? 'hint' : 'why'}: ${result.hint}`);
    if (result.detail !== null) lines.push(`${indent}seen: ${result.detail}`);
  }
  lines.push('');
  for (const stage of report.stages) {
    const { pass, fail, unjudged } = stage.counts;
    lines.push(
      `${stage.status === 'pass' ? 'PASS' : 'FAIL'}  stage ${stage.stage}: ${pass} passed, ${fail} failed${unjudged > 0 ? `, ${unjudged} unjudged` : ''}`,
    );
  }
  for (const note of report.notes) lines.push(`(checker: ${note})`);
  return lines.join('\n');
}
