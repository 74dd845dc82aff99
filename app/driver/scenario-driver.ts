/**
 * The one driver of the acceptance matrix and the stage checker. Per scenario it resets the mock API, reads
 * its health, sets the scenario's case mode, posts the alert, answers approval requests as the scenario's
 * approver, sends the follow-up once the first run finished, and waits for a quiet journal; it returns what
 * it saw. Each tool judges that evidence its own way (app/acceptance/verdict.ts, app/judges/expectations/),
 * and says in DriverOptions where its driving differs: how long a 404 trigger is retried and what a
 * trigger's answer means, whose approval requests are answered and with what body, whether an unfinished
 * first run ends the scenario.
 */

import { resumeUrlIn } from '../judging/approval-request.js';
import type { Facts } from '../judging/questions.js';
import type { MockApiClient } from '../mock-api-client/client.js';
import { HealthReadingSchema, type StateReading } from '../mock-api-client/readings.js';
import { hasEnded, type RunSource, type RunView, STIMULUS_HEADER } from '../runs/run.js';
import { postResume, postTrigger, readState, rewriteOrigin, waitUntilSettled } from './moves.js';
import type { Timing } from './timing.js';
import { webhookUrl } from './webhook-path.js';

/** A trigger's answer: the status it answered (null: it could not be sent), and why it could not. */
export interface TriggerAnswer {
  status: number | null;
  error: string | null;
}

/** What the driver saw happen besides the final state. */
export interface Marks {
  /** The alert webhook's answer. */
  trigger: TriggerAnswer;
  /** The state at the moment the first approval request was seen, before anyone answered it. */
  atApprovalRequest: StateReading | null;
  /** The status the resume URL answered to the approver's first decision (null: not reachable). */
  resumeStatus: number | null;
  /** The first run of a two-stimulus scenario finished (its followUp.firstRunFinished held); null: none. */
  firstRunDone: boolean | null;
  /** The last journal seq before the second stimulus. */
  followUpSeq: number | null;
  /** The second stimulus's answer; null when it was not sent. */
  followUpTrigger: TriggerAnswer | null;
}

/** A stimulus the driver sent and the run it caused, as far as the driver saw it. */
export interface SentStimulus {
  path: string;
  sentAt: Date;
  /** The run's id once the run source found it; null: not (yet) found, or no run source. */
  runId: string | null;
  /** The run as it was first found (its id and address, when a later look-up gets no answer). */
  found: RunView | null;
  /** The run's last status seen. */
  status: string | null;
  /** When (performance.now()) the run was first seen ended; null: not seen ended. */
  endedAt: number | null;
}

/** Where a scenario's time went, in milliseconds (the checker's --timings). */
export interface DriverTimings {
  /** POST /reset, GET /health and the case mode. */
  reset: number;
  /** The webhook POSTs, until n8n answered. */
  trigger: number;
  /** From the alert's answer until its run was seen ended (null: never seen ended, or no run source). */
  run: number | null;
  /** The rest of the wait for evidence (settling, approvals, a follow-up's run). */
  settle: number;
}

/** What a driven scenario leaves for its judge. */
export interface DriverEvidence {
  marks: Marks;
  /** Each stimulus sent with a 2xx answer, in order: the alert, then the follow-up. */
  sent: SentStimulus[];
  timings: DriverTimings;
  /** The last state seen (the first run's, when an unfinished first run stopped the scenario); null: none. */
  state: StateReading | null;
  /**
   * The last wait ran out: its deadline passed with the scenario not done on a quiet journal and the newest
   * stimulus's run not seen ended (its `status` is the one it had then). False when it ended sooner.
   */
  ranOut: boolean;
}

/** A request of the preparation that the mock API did not answer as a fresh lab does. */
export interface Refusal {
  request: 'POST /reset' | 'GET /health' | 'POST /control/case-mode';
  status: number;
  body: unknown;
}

export type DriverResult = { refusal: Refusal } | { evidence: DriverEvidence };

export type Approver = 'approve' | 'reject' | 'silent';

/** One tool's way of driving, the same for each of its scenarios. */
export interface DriverOptions {
  api: MockApiClient;
  /** Where the triggers live: `<workflowUrl>/webhook/<path>`, as on n8n. */
  workflowUrl: string;
  /** The target's approval time limit; the driver only waits for it, the target enforces it. */
  approvalTimeoutSeconds: number;
  /** Replaces the origin of resume URLs that name a host the driver cannot reach. */
  resumeOrigin: string | undefined;
  timing: Timing;
  /** Told what the driver meets on the way: a retried trigger, a refused resume POST, a failed poll. */
  note(message: string): void;
  /** How long a trigger that answers 404 is retried; the phase time when not given. */
  triggerRetryMs?: number;
  /** Sees each trigger's answer before the driver goes on; what it throws ends the scenario. */
  vetTrigger(answer: TriggerAnswer, url: string, path: string): void;
  /** Whose approval requests the approver answers: those of the scenario's event, or every one. */
  answers: 'own event' | 'every request';
  /** The body of the approver's decision. */
  decision(approver: Exclude<Approver, 'silent'>, facts: Facts): unknown;
  /** A first run that never finished: the scenario stops there, or goes on to its judgement all the same. */
  unfinishedFirstRun: 'stop' | 'go on';
  /** Where the stimuli's runs are found: a wait for evidence then ends once the run has ended. */
  runs?: RunSource | undefined;
}

/** One scenario: what is sent, who answers, and when it counts as done. */
export interface DriverScenario {
  facts: Facts;
  setup?: 'fail_next_write' | undefined;
  approver: Approver;
  alertPath: string;
  alert: unknown;
  /** A second stimulus, sent once the first run has finished. */
  followUp?: { path: string; payload: unknown; firstRunFinished(state: StateReading): boolean } | undefined;
  /**
   * A silent approver's limit sat out: the driver first waits for an approval request, then judges only
   * this long after it was seen. Without it the run is judged as it goes, up to the limit and its lateness.
   */
  sitOutMs?: number | undefined;
  /** The judge as the wait's stopping rule: the scenario is done once this holds on a quiet journal. */
  done(state: StateReading, marks: Marks): boolean;
}

export function isOk(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}

/** Prepares the mock API, then drives the scenario; a refused preparation drives nothing. */
export async function driveScenario(options: DriverOptions, scenario: DriverScenario): Promise<DriverResult> {
  const began = performance.now();
  const refusal = await prepare(options.api, scenario.setup);
  if (refusal !== null) return { refusal };
  const run = new ScenarioRun(options, scenario);
  run.timings.reset = performance.now() - began;
  return { evidence: await run.drive() };
}

/** POST /reset, then GET /health must say healthy; then the scenario's case mode. Null when all is well. */
async function prepare(api: MockApiClient, setup: DriverScenario['setup']): Promise<Refusal | null> {
  const reset = await api.request('POST', '/reset', {});
  if (reset.status !== 200) return { request: 'POST /reset', status: reset.status, body: reset.body };
  const health = await api.request('GET', '/health');
  const parsed = HealthReadingSchema.safeParse(health.body);
  if (health.status !== 200 || !parsed.success || parsed.data.case_mode !== 'healthy')
    return { request: 'GET /health', status: health.status, body: health.body };
  if (setup === 'fail_next_write') {
    const mode = await api.request('POST', '/control/case-mode', { mode: 'fail_next_write' });
    if (mode.status !== 200)
      return { request: 'POST /control/case-mode', status: mode.status, body: mode.body };
  }
  return null;
}

/** One scenario in progress: its stimuli, the approval requests it has answered, what it marked. */
class ScenarioRun {
  readonly marks: Marks = {
    trigger: { status: null, error: null },
    atApprovalRequest: null,
    resumeStatus: null,
    firstRunDone: null,
    followUpSeq: null,
    followUpTrigger: null,
  };
  readonly sent: SentStimulus[] = [];
  readonly timings: DriverTimings = { reset: 0, trigger: 0, run: null, settle: 0 };
  readonly #answered = new Set<string>();
  #approvalSeenAt: number | null = null;

  constructor(
    readonly options: DriverOptions,
    readonly scenario: DriverScenario,
  ) {}

  async drive(): Promise<DriverEvidence> {
    const { marks, scenario } = this;
    marks.trigger = await this.send(scenario.alertPath, scenario.alert);
    if (!isOk(marks.trigger.status)) return this.evidence(await this.read());
    const answered = performance.now();
    const evidence = await this.driveRun();
    const first = this.sent[0]?.endedAt ?? null;
    this.timings.run = first === null ? null : first - answered;
    this.timings.settle = performance.now() - answered - (this.timings.run ?? 0) - this.#followUpTrigger;
    return evidence;
  }

  #followUpTrigger = 0;

  evidence(state: StateReading | null, ranOut = false): DriverEvidence {
    return { marks: this.marks, sent: this.sent, timings: this.timings, state, ranOut };
  }

  /** After the alert was accepted: the follow-up, approvals, and the wait for a settled state. */
  async driveRun(): Promise<DriverEvidence> {
    const { marks, scenario, options } = this;

    const { followUp } = scenario;
    if (followUp !== undefined) {
      const first = await this.settle(
        (state) => followUp.firstRunFinished(state),
        this.deadline(scenario.approver === 'silent'),
      );
      marks.firstRunDone = first?.verdict.pass ?? false;
      if (first !== null && marks.firstRunDone) {
        marks.followUpSeq = first.state.journal.at(-1)?.seq ?? 0;
        // The first run's id, known before the second delivery (same event_id) is sent, is not its run.
        await this.runEnded();
        const before = performance.now();
        marks.followUpTrigger = await this.send(followUp.path, followUp.payload);
        this.#followUpTrigger = performance.now() - before;
      } else if (options.unfinishedFirstRun === 'stop') {
        return this.evidence(first?.state ?? null, first?.ranOut ?? false);
      }
    }

    // A silent approver's run is waited for up to the approval limit and its lateness; with sitOutMs, only
    // once there is an approval request to time out, and judged only once the limit is sat out.
    let sitsOut = scenario.approver === 'silent';
    const { sitOutMs } = scenario;
    if (sitsOut && sitOutMs !== undefined) {
      const asked = await this.settle(
        () => this.#approvalSeenAt !== null,
        performance.now() + options.timing.phaseTimeoutMs,
        { ...options.timing, settleMs: 0 },
      );
      sitsOut = asked?.verdict.pass ?? false;
    }
    const satOut = () =>
      !sitsOut ||
      sitOutMs === undefined ||
      (this.#approvalSeenAt !== null && performance.now() - this.#approvalSeenAt >= sitOutMs);
    const settled = await this.settle(
      (state) => satOut() && scenario.done(state, marks),
      this.deadline(sitsOut),
    );
    return this.evidence(settled?.state ?? null, settled?.ranOut ?? false);
  }

  /** The phase time from now, and the approval limit with its lateness when a silent approver sits it out. */
  deadline(sitsOut: boolean): number {
    const { timing, approvalTimeoutSeconds } = this.options;
    return (
      performance.now() +
      timing.phaseTimeoutMs +
      (sitsOut ? approvalTimeoutSeconds * 1000 + timing.approvalLatenessMs : 0)
    );
  }

  /** Polls until `done` holds on a quiet journal or the deadline passes, answering approvals on the way. */
  settle(done: (state: StateReading) => boolean, deadline: number, timing: Timing = this.options.timing) {
    return waitUntilSettled({
      readState: () => this.read(),
      onState: (state) => this.answerApprovals(state),
      judge: (state) => ({ pass: done(state) }),
      timing,
      deadline,
      ...(this.options.runs ? { runEnded: () => this.runEnded() } : {}),
    });
  }

  /** The newest stimulus's run has ended (found by its event_id, then its status polled). */
  async runEnded(): Promise<boolean> {
    const { runs } = this.options;
    const stimulus = this.sent.at(-1);
    if (runs === undefined || stimulus === undefined) return false;
    if (stimulus.endedAt !== null) return true;
    if (stimulus.runId === null) {
      const found = await runs.find({
        eventId: this.scenario.facts.eventId,
        path: stimulus.path,
        sentAt: stimulus.sentAt,
        exclude: this.sent.flatMap((s) => (s.runId === null ? [] : [s.runId])),
      });
      if (found.kind !== 'found') return false;
      stimulus.runId = found.run.id;
      stimulus.found = found.run;
      stimulus.status = found.run.status;
    } else {
      stimulus.status = (await runs.status(stimulus.runId)) ?? stimulus.status;
    }
    if (stimulus.status === null || !hasEnded(stimulus.status)) return false;
    stimulus.endedAt = performance.now();
    return true;
  }

  read(): Promise<StateReading | null> {
    return readState(this.options.api, this.options.note);
  }

  /** POSTs to a webhook; its answer, vetted by the tool, which may end the scenario. */
  async send(path: string, payload: unknown): Promise<TriggerAnswer> {
    const { options } = this;
    const url = webhookUrl(options.workflowUrl, path);
    const timing = {
      ...options.timing,
      phaseTimeoutMs: options.triggerRetryMs ?? options.timing.phaseTimeoutMs,
    };
    let answer: TriggerAnswer;
    const sentAt = new Date();
    const began = performance.now();
    try {
      const headers = { [STIMULUS_HEADER]: this.scenario.facts.eventId };
      const { runs } = options;
      const listens =
        runs?.listens === undefined ? undefined : async () => (await runs.listens?.(path)) ?? null;
      const status = await postTrigger(url, payload, timing, options.note, headers, listens);
      answer = { status, error: null };
    } catch (error) {
      answer = { status: null, error: error instanceof Error ? error.message : String(error) };
    }
    this.timings.trigger += performance.now() - began;
    options.vetTrigger(answer, url, path);
    if (isOk(answer.status))
      this.sent.push({ path, sentAt, runId: null, found: null, status: null, endedAt: null });
    return answer;
  }

  /**
   * The approver: each approval request once. The first one seen is marked with the state of that moment;
   * a silent approver answers none.
   */
  async answerApprovals(state: StateReading): Promise<void> {
    const { options, scenario, marks } = this;
    for (const request of state.notifications) {
      if (options.answers === 'own event' && request.event_id !== scenario.facts.eventId) continue;
      const url = resumeUrlIn(request);
      if (url === undefined || this.#answered.has(url)) continue;
      this.#answered.add(url);
      if (marks.atApprovalRequest === null) {
        marks.atApprovalRequest = state;
        this.#approvalSeenAt = performance.now();
      }
      if (scenario.approver === 'silent') continue;
      const status = await postResume(
        rewriteOrigin(url, options.resumeOrigin),
        options.decision(scenario.approver, scenario.facts),
        options.timing,
        options.note,
      );
      marks.resumeStatus ??= status;
    }
  }
}
