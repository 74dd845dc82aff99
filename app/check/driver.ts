/**
 * The checker's driver: per scenario it resets the mock API, sends the stimuli, answers approvals as the
 * scenario says, waits for a quiet journal and judges each expectation. A webhook path nothing listens
 * on stops the whole check (NotListening) with one line.
 */
import { randomUUID } from 'node:crypto';
import { HealthSchema, type State } from '../lab/api-schemas.js';
import { resumeUrlIn } from '../lab/approval-request.js';
import { type ExpectationResult, STAGE_NAMES, type Stopped } from '../lab/check-report.js';
import type { MockApiClient } from '../lab/mock-api.js';
import type { Timing } from '../lab/timing.js';
import { webhookUrl } from '../lab/webhook-path.js';
import { findExecutionFields } from '../n8n/executions.js';
import { postResume, postTrigger, readState, rewriteOrigin, waitUntilSettled } from '../targets/moves.js';
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

export interface DriverContext {
  options: CheckOptions;
  target: Target;
  api: MockApiClient;
  timing: Timing;
  mapping: Mapping;
  identity: Record<string, unknown> | null;
  note(message: string): void;
  onEvidence?: (scenario: Scenario, evidence: Evidence) => void;
}

/** Sends a scenario's stimuli, answers approvals as the scenario says, and judges when the journal is quiet. */
export class Driver {
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

export function isOk(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}

function neverArrived(path: string, trigger: Marks['trigger']): Outcome {
  return {
    status: 'fail',
    hint: `the alert never reached the workflow: POST /webhook/${path} ${trigger.status === null ? 'could not be sent' : `answered ${trigger.status}`} (see the webhook stage)`,
    ...(trigger.error === null ? {} : { detail: trigger.error }),
  };
}
