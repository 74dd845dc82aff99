/**
 * The tutor beside every run: while a console page is open it watches the workflow platform's runs (a
 * RunFeed: n8n's public API in the lab, asked by the console, never the other way round) and explains each
 * one as it ends, or as it starts to wait for its approval, from the run's own data and the mock API's
 * state (./explain.ts). A waiting run is followed until it ends, however many runs come after it, and
 * explained again then. The ledger (./runs-file.ts, reports/runs.json) is the source of what was said: the
 * explanations for the console's "Your runs" panel, the summaries for the class tools, and every run read
 * at its status, so that a console started again says the same and reads no run twice. Everything is
 * bounded: one list a poll, a run fetched once per status (again at the next polls while a run beside
 * it is still going, for at most JUDGE_WAIT_MS; its size and time capped by the feed), the
 * user's identity asked once; what goes wrong on the way is said once, as the tutor's own state, never as
 * a verdict.
 */
import type { ApiCaller } from '../mock-api-client/client.js';
import { type StateReading, StateReadingSchema } from '../mock-api-client/readings.js';
import {
  type BusySpan,
  hasEnded,
  type RunDetail,
  type RunFeed,
  type RunHead,
  RunTooLargeError,
} from '../runs/run.js';
import { ListenedPoll } from '../tool-kit/listened-poll.js';
import { type ExplainInput, explainRun, fromChecker } from './explain.js';
import type { Explanation } from './explanation.js';
import { RunsLedger, runKey } from './runs-file.js';
import type { TutorView } from './tutor-view.js';

/** The runs asked for at each poll: more than a trainee makes between two polls. */
export const RECENT_RUNS = 20;
/** Waiting runs no longer listed (ended, or behind newer ones) fetched at one poll, the oldest first. */
const FOLLOWED_PER_POLL = 10;
/** Polls a run n8n will not give is tried in before it is left (said in the panel). */
const MAX_TRIES = 3;
/** Failed fetches remembered (more is a storm: forgotten, and tried again). */
const FAILURES_KEPT = 500;

export interface TutorOptions {
  feed: RunFeed;
  /** The mock API: GET /state. */
  api: ApiCaller;
  /** The identity system's directory: the user's identity, or null when it does not know them. */
  identityOf: (user: string) => Promise<Record<string, unknown> | null>;
  /** The explainer (./explain.ts explainRun); a test may give its own. */
  explain?: (input: ExplainInput) => Explanation;
  /** reports/runs.json; null or absent: no file. */
  runsFile?: string | null;
  pollMs?: number;
  /** Told when the runs file could not be written (the console prints it); the panel says it too. */
  onWriteError?: (error: Error) => void;
}

const waits = (status: string) => status === 'waiting';
const explainable = (status: string) => hasEnded(status) || waits(status);
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
/** A run's time: from its start to its stop, or on to now and after while it has not ended. */
function windowOf(startedAt: string, status: string, stoppedAt: string | null): BusySpan {
  const stop = hasEnded(status) && stoppedAt ? Date.parse(stoppedAt) : Number.POSITIVE_INFINITY;
  return [Date.parse(startedAt), Number.isNaN(stop) ? Number.POSITIVE_INFINITY : stop];
}
/** A run's busy times: its nodes' (app/runs/run.ts), or its whole window where n8n gave none. */
const spansOf = (d: RunDetail): readonly BusySpan[] =>
  d.view.busy ?? [windowOf(d.head.startedAt, d.head.status, d.head.stoppedAt)];
/**
 * How long after its end a run waits to be judged while another run that began before that end is still
 * going (its busy times unknown): runs take about a second; a run going on longer is taken to overlap.
 */
const JUDGE_WAIT_MS = 20_000;
/** Two runs' times this close are taken to overlap: one millisecond, for rounding (one clock, the host's). */
const OVERLAP_MARGIN_MS = 1;
interface Progress {
  changed: boolean;
  /** What kept the tutor from explaining at this poll (n8n or the mock API not answering, the file). */
  trouble: string | null;
  /** A run left unexplained at this poll (n8n would not give it, the explainer failed on it). */
  note: string | null;
}

/** A run due to be read: listed now (its head), or a waiting run followed by its id and start. */
interface Due {
  id: string;
  startedAt: string;
  head: RunHead | null;
}

export class RunTutor extends ListenedPoll<TutorView> {
  readonly #feed: RunFeed;
  readonly #api: ApiCaller;
  readonly #explain: (input: ExplainInput) => Explanation;
  readonly #ledger: RunsLedger;
  readonly #onWriteError: ((error: Error) => void) | undefined;
  /** The runs last listed: another run's overlap makes a run's requests uncertain. */
  #heads: RunHead[] = [];
  /** Fetches of a run (and status) n8n did not answer, to leave it after MAX_TRIES. */
  readonly #failures = new Map<string, number>();
  #note: string | null = null;
  readonly #identityOf: (user: string) => Promise<Record<string, unknown> | null>;
  #view: TutorView;

  constructor(options: TutorOptions) {
    super(options.pollMs ?? 1000);
    this.#feed = options.feed;
    this.#api = options.api;
    this.#identityOf = options.identityOf;
    this.#explain = options.explain ?? explainRun;
    this.#ledger = new RunsLedger(options.runsFile ?? null);
    this.#onWriteError = options.onWriteError;
    this.#view = { version: 0, trouble: null, runs: this.#ledger.explained };
  }

  get view(): TutorView {
    return this.#view;
  }

  protected async poll(): Promise<void> {
    const progress: Progress = { changed: false, trouble: null, note: null };
    try {
      await this.#explainNew(progress);
    } catch (error) {
      progress.trouble = message(error);
    }
    if (progress.changed && this.#ledger.path !== null) {
      try {
        await this.#ledger.write();
      } catch (error) {
        progress.trouble ??= `The runs file ${this.#ledger.path} cannot be written (${message(error)}).`;
        this.#onWriteError?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
    // A run left unexplained is said until a later one is explained.
    if (progress.note !== null) this.#note = progress.note;
    else if (progress.changed) this.#note = null;
    const trouble = progress.trouble ?? this.#note;
    // What the ledger holds is shown, read from its file by the first poll or explained since.
    const runs = this.#ledger.explained;
    if (runs === this.#view.runs && trouble === this.#view.trouble) return;
    this.#view = { version: this.#view.version + 1, trouble, runs };
    this.tell(this.#view);
  }

  /**
   * Explains each run that has ended or waits since it was last read, oldest first, and each run read while
   * it waited that the list no longer shows. n8n or the mock API not answering ends the poll (the next one
   * tries again); one run n8n will not give or the explainer cannot explain is said and, after MAX_TRIES,
   * left, so that it holds up no other.
   */
  async #explainNew(progress: Progress): Promise<void> {
    await this.#ledger.load();
    let heads: RunHead[];
    try {
      heads = await this.#feed.recent(RECENT_RUNS);
    } catch (error) {
      throw new Error(
        `Your runs cannot be read from n8n just now (${message(error)}); they are explained once it answers.`,
      );
    }
    this.#heads = heads;
    const listed = new Set(heads.map((h) => runKey(h.id, h.startedAt)));
    const due: Due[] = heads
      .filter((h) => explainable(h.status) && this.#ledger.seenStatus(h.id, h.startedAt) !== h.status)
      .reverse()
      .map((h) => ({ id: h.id, startedAt: h.startedAt, head: h }));
    const followed = this.#ledger
      .waitingRuns()
      .filter((w) => !listed.has(runKey(w.execution_id, w.started_at)))
      .slice(0, FOLLOWED_PER_POLL);
    for (const w of followed) due.push({ id: w.execution_id, startedAt: w.started_at, head: null });
    // Every run due is read first: the busy times of runs that ended together are known to each other.
    const read: { run: Due; detail: RunDetail }[] = [];
    const busyNow = new Map<string, readonly BusySpan[]>();
    for (const run of due) {
      const detail = await this.#read(run, progress, busyNow);
      if (detail !== null) read.push({ run, detail });
    }
    let state: StateReading | null = null;
    /** When the state was read (this host's clock): with its `now`, the mock API's clock. */
    let stateReadAt = 0;
    for (const { run, detail } of read) {
      const status = detail.head.status;
      const overlapping = this.#overlaps(detail, busyNow);
      // Another run still going may have been busy beside it: judged once that one's times are known.
      if (overlapping === 'not yet') continue;
      if (state === null) {
        stateReadAt = Date.now();
        state = await this.#state();
      }
      const identity = await this.#identity(detail);
      let explanation: Explanation;
      try {
        const earlier = this.#ledger.explanationOf(run.id, run.startedAt);
        explanation = this.#explain({ detail, state, overlapping, identity, stateReadAt, earlier });
      } catch (error) {
        progress.note = `Run ${run.id} could not be explained (${message(error)}).`;
        this.#ledger.see(run.id, run.startedAt, status);
        continue;
      }
      this.#failures.delete(`${runKey(run.id, run.startedAt)}|${status}`);
      this.#ledger.see(run.id, run.startedAt, status);
      this.#ledger.record(explanation);
      progress.changed = true;
    }
  }

  /**
   * A due run's data (its busy times noted in busyNow), or null when there is nothing to explain: n8n
   * would not give it (said, tried again), it is too large (said on its card), gone or its id another
   * run's (what was said of it stays), the checker's, or already explained at this status.
   */
  async #read(
    run: Due,
    progress: Progress,
    busyNow: Map<string, readonly BusySpan[]>,
  ): Promise<RunDetail | null> {
    let detail: RunDetail | null;
    try {
      detail = await this.#feed.detail(run.id);
    } catch (error) {
      if (error instanceof RunTooLargeError && run.head !== null) {
        this.#ledger.see(run.id, run.startedAt, run.head.status);
        this.#ledger.record(tooLarge(run.head, error));
        progress.changed = true;
        return null;
      }
      progress.note = `Run ${run.id} cannot be read from n8n (${message(error)}).`;
      this.#failed(run);
      return null;
    }
    // Gone from n8n, or its id now another run's (a lab made anew): what was said of it stays.
    if (detail === null || detail.head.startedAt !== run.startedAt) {
      this.#ledger.see(run.id, run.startedAt, 'gone');
      const earlier = this.#ledger.explanationOf(run.id, run.startedAt);
      if (earlier?.verdict === 'waiting') this.#ledger.record(goneWhileWaiting(earlier));
      progress.changed = true;
      return null;
    }
    const status = detail.head.status;
    if (explainable(status)) busyNow.set(runKey(run.id, run.startedAt), spansOf(detail));
    if (fromChecker(detail)) {
      this.#ledger.see(run.id, run.startedAt, status);
      return null;
    }
    if (!explainable(status) || this.#ledger.seenStatus(run.id, run.startedAt) === status) return null;
    return detail;
  }

  /** A run n8n would not give: tried again at the next polls, left after MAX_TRIES. */
  #failed(run: Due): void {
    const status = run.head?.status ?? 'followed';
    const key = `${runKey(run.id, run.startedAt)}|${status}`;
    const tries = (this.#failures.get(key) ?? 0) + 1;
    this.#failures.set(key, tries);
    if (this.#failures.size > FAILURES_KEPT) this.#failures.clear();
    if (tries < MAX_TRIES) return;
    this.#failures.delete(key);
    this.#ledger.see(run.id, run.startedAt, run.head === null ? 'unread' : status);
  }

  /**
   * Another run was busy while this one was: what each sent cannot be told apart. A run's busy spans are
   * its nodes' times (a run waiting for its approval is not busy while it waits), read at this poll or
   * when it was explained; where they are not known, its whole window. A run still going that began
   * before this one's last node ended may have been busy beside it: 'not yet', until its times are known
   * (it ends, or waits), or JUDGE_WAIT_MS after this one's end, when its window decides.
   */
  #overlaps(detail: RunDetail, busyNow: ReadonlyMap<string, readonly BusySpan[]>): boolean | 'not yet' {
    const own = spansOf(detail);
    const ownEnd = Math.max(...own.map(([, to]) => to));
    const others = new Map<string, { spans: readonly BusySpan[]; going: boolean }>();
    for (const e of this.#ledger.explained)
      others.set(runKey(e.execution_id, e.started_at), {
        spans: e.busy ?? [windowOf(e.started_at, e.status, e.stopped_at)],
        going: false,
      });
    for (const h of this.#heads) {
      const key = runKey(h.id, h.startedAt);
      const known = this.#ledger.explanationOf(h.id, h.startedAt);
      const read = busyNow.get(key);
      // Read at the status it has now: busy as read (a waiting run, up to its wait); else its window.
      const spans =
        read ??
        (known?.busy !== undefined && known.status === h.status && h.status !== 'running'
          ? known.busy
          : [windowOf(h.startedAt, h.status, h.stoppedAt)]);
      others.set(key, { spans, going: read === undefined && (h.status === 'running' || h.status === 'new') });
    }
    others.delete(runKey(detail.head.id, detail.head.startedAt));
    let unknown = false;
    for (const { spans, going } of others.values())
      for (const [from, to] of spans)
        if (
          !Number.isNaN(from) &&
          own.some(([a, b]) => from <= b + OVERLAP_MARGIN_MS && a <= to + OVERLAP_MARGIN_MS)
        ) {
          if (!going) return true;
          unknown = true;
        }
    if (!unknown) return false;
    return Number.isFinite(ownEnd) && Date.now() - ownEnd < JUDGE_WAIT_MS ? 'not yet' : true;
  }

  async #state(): Promise<StateReading> {
    const unanswered = (why: string) =>
      new Error(
        `The mock API's state cannot be read just now (${why}); your runs are explained once it answers.`,
      );
    let answer: Awaited<ReturnType<ApiCaller['request']>>;
    try {
      answer = await this.#api.request('GET', '/state');
    } catch (error) {
      throw unanswered(`${this.#api.describe}: ${message(error)}`);
    }
    if (answer.status !== 200) throw unanswered(`GET /state answered ${answer.status}`);
    const parsed = StateReadingSchema.safeParse(answer.body);
    if (!parsed.success) throw unanswered('GET /state is not the state');
    return parsed.data;
  }

  /**
   * The alert's user as the identity system knows them (null: it does not). Read from the lab's fixed
   * directory, never asked over HTTP: a request of the tutor's in the journal would be taken for the run's.
   */
  async #identity(detail: RunDetail): Promise<Record<string, unknown> | null> {
    const body = detail.trigger?.body;
    const user = typeof body === 'object' && body !== null && 'user' in body ? body.user : undefined;
    return typeof user === 'string' && user !== '' ? await this.#identityOf(user) : null;
  }
}

/** A run too large to read (over the feed's cap): said so, from its head, and not judged. */
function tooLarge(head: RunHead, error: RunTooLargeError): Explanation {
  const mib = (n: number) => `${Math.round((n / 1048576) * 10) / 10} MiB`;
  const size = error.bytes === null ? `over ${mib(error.limit)}` : mib(error.bytes);
  return {
    execution_id: head.id,
    url: head.url ?? null,
    workflow: '',
    from_editor: head.mode === 'manual',
    status: head.status,
    started_at: head.startedAt,
    stopped_at: head.stoppedAt,
    alert: null,
    kind: 'other',
    kind_text: 'a run too large to read',
    stages: [],
    received: [],
    received_certain: false,
    verdict: 'cannot-tell',
    unmet: null,
    summary: `its data is ${size}, more than the ${mib(error.limit)} the tutor reads of a run, so it is not judged: open it in n8n`,
  };
}

/** A run read while it waited that n8n no longer has (deleted, or the lab made anew): how it ended is unknown. */
function goneWhileWaiting(earlier: Explanation): Explanation {
  return {
    ...earlier,
    verdict: 'cannot-tell',
    summary:
      'n8n no longer has this run (deleted, or the lab made anew) and how it ended was not seen: what it did after its approval request is not judged',
  };
}
