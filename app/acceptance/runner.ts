/**
 * Runs the acceptance matrix against one workflow target. The runner plays the alert source and the
 * approver, and judges each case from the mock API's destination state only (verdict.ts). The target is
 * reached the same way whether it is the in-process reference host or n8n: webhook POSTs, and the resume
 * URL found in the approval notification.
 */

import { randomUUID } from 'node:crypto';
import { HealthSchema, type State } from '../lab/api-schemas.js';
import { resumeUrlIn } from '../lab/approval-request.js';
import type { Facts } from '../lab/judging.js';
import type { MockApiClient } from '../lab/mock-api.js';
import type { Timing } from '../lab/timing.js';
import { postResume, postTrigger, readState, rewriteOrigin, waitUntilSettled } from '../targets/moves.js';
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
  const run = new CaseRun(options, script, facts);
  const finish = (verdict: Verdict): CaseResult => ({
    case: name,
    expectation: EXPECTATIONS[name],
    observed: verdict.observed,
    verdict: verdict.pass ? 'pass' : 'fail',
    seconds: Math.round(performance.now() - started) / 1000,
    event_id: facts.eventId,
    checks: verdict.checks,
    notes: run.notes,
  });

  try {
    const precondition = await run.prepare();
    if (precondition !== null)
      return finish({ pass: false, checks: [precondition], observed: precondition.check });

    await run.trigger('suspicious-login', alertPayload(facts, script));
    const phaseDeadline = () =>
      performance.now() +
      options.timing.phaseTimeoutMs +
      (script.approver === 'silent'
        ? options.approvalTimeoutSeconds * 1000 + options.timing.approvalLatenessMs
        : 0);

    if (script.followUp !== undefined) {
      const first = await run.waitForVerdict('positive', phaseDeadline());
      if (!first.pass) {
        const checks = first.checks.map((c) => ({ ...c, check: `first run: ${c.check}` }));
        return finish({ pass: false, checks, observed: `first run never finished: ${first.observed}` });
      }
      if (script.followUp === 'deliver_again')
        await run.trigger('suspicious-login', alertPayload(facts, script));
      else await run.trigger('suspicious-login-rollback', { event_id: facts.eventId });
    }
    return finish(await run.waitForVerdict(name, phaseDeadline()));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return finish({
      pass: false,
      checks: [{ check: 'the runner could run the case', pass: false, detail: message }],
      observed: `runner error: ${message}`,
    });
  }
}

/** One case in progress: its requests, the approvals it has answered, what it noted on the way. */
class CaseRun {
  readonly notes: string[] = [];
  readonly #answered = new Set<string>();

  constructor(
    readonly options: RunnerOptions,
    readonly script: CaseScript,
    readonly facts: Facts,
  ) {}

  /** POST /reset, then GET /health must say healthy; then the case's own setup. Null when all is well. */
  async prepare(): Promise<Check | null> {
    const { api } = this.options;
    const reset = await api.request('POST', '/reset', {});
    if (reset.status !== 200) {
      return {
        check: 'POST /reset answers 200',
        pass: false,
        detail: `${reset.status} ${JSON.stringify(reset.body)}`,
      };
    }
    const health = await api.request('GET', '/health');
    const parsed = HealthSchema.safeParse(health.body);
    if (health.status !== 200 || !parsed.success || parsed.data.case_mode !== 'healthy') {
      return {
        check: 'GET /health reports case_mode healthy before the run',
        pass: false,
        detail: `${health.status} ${JSON.stringify(health.body)}`,
      };
    }
    if (this.script.setup === 'fail_next_write') {
      const mode = await api.request('POST', '/control/case-mode', { mode: 'fail_next_write' });
      if (mode.status !== 200) {
        return {
          check: 'POST /control/case-mode fail_next_write answers 200',
          pass: false,
          detail: `${mode.status}`,
        };
      }
    }
    return null;
  }

  async trigger(name: 'suspicious-login' | 'suspicious-login-rollback', payload: unknown): Promise<void> {
    const url = `${this.options.workflowUrl.replace(/\/+$/, '')}/webhook/${name}`;
    const status = await postTrigger(url, payload, this.options.timing, (message) => this.note(message));
    if (status < 200 || status >= 300) throw new Error(`POST ${url} answered ${status}`);
  }

  /**
   * Polls GET /state until the case's checks pass and the journal has stayed unchanged for settleMs, or the
   * deadline passes; answers approval requests on the way. Returns the verdict of the last state seen.
   */
  async waitForVerdict(name: CaseName, deadline: number): Promise<Verdict> {
    const settled = await waitUntilSettled({
      readState: () => this.state(),
      onState: (state) => this.answerApprovals(state),
      judge: (state) => judge(name, state, this.facts),
      timing: this.options.timing,
      deadline,
    });
    return (
      settled?.verdict ?? {
        pass: false,
        checks: [{ check: 'GET /state answered', pass: false }],
        observed: 'no state',
      }
    );
  }

  state(): Promise<State | null> {
    return readState(this.options.api, (message) => this.note(message));
  }

  /** The approver: answers each approval request of this event once, as the case's script says. */
  async answerApprovals(state: State): Promise<void> {
    if (this.script.approver === 'silent') return;
    for (const request of state.notifications) {
      if (request.event_id !== this.facts.eventId) continue;
      const resumeUrl = resumeUrlIn(request);
      if (resumeUrl === undefined || this.#answered.has(resumeUrl)) continue;
      this.#answered.add(resumeUrl);
      await this.resume(resumeUrl, {
        decision: this.script.approver === 'approve' ? 'approve' : 'reject',
        approver: this.facts.approver,
      });
    }
  }

  async resume(resumeUrl: string, decision: { decision: string; approver: string }): Promise<void> {
    const url = rewriteOrigin(resumeUrl, this.options.resumeOrigin);
    await postResume(url, decision, this.options.timing, (message) => this.note(message));
  }

  note(message: string): void {
    if (this.notes.at(-1) !== message) this.notes.push(message);
  }
}
