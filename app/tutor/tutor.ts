/**
 * The tutor beside every run: while a console page is open it watches the workflow platform's runs (a
 * RunFeed: n8n's public API in the lab, asked by the console, never the other way round) and explains each
 * one as it ends, or as it starts to wait for its approval, from the run's own data and the mock API's
 * state (./explain.ts). A waiting run is explained again once it ends. Explanations are kept newest first
 * for the console's "Your runs" panel, and summarised into reports/runs.json (./runs-file.ts) for the class
 * tools. Everything is bounded: one list a poll, a run fetched once per status, the user's identity asked
 * once; what goes wrong on the way is said once, as the tutor's own state, never as a verdict.
 */
import { hasEnded, type RunDetail, type RunFeed, type RunHead } from '../driver/run-watch.js';
import type { ApiCaller } from '../mock-api-client/client.js';
import { type StateReading, StateReadingSchema } from '../mock-api-client/readings.js';
import { ListenedPoll } from '../tool-kit/listened-poll.js';
import { type ExplainInput, explainRun, fromChecker } from './explain.js';
import { type Explanation, summaryOf } from './explanation.js';
import { RunsLedger } from './runs-file.js';
import { TUTOR_RUNS_SHOWN, type TutorView } from './tutor-view.js';

/** The runs asked for at each poll: more than a trainee makes between two polls. */
export const RECENT_RUNS = 20;
/** Runs whose status the tutor remembers (each fetched once per status). */
const SEEN_KEPT = 500;
/** Polls a run n8n will not give is tried in before it is left (said in the panel). */
const MAX_TRIES = 3;

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
function windowOf(
  startedAt: string,
  status: string,
  stoppedAt: string | null,
): { start: number; stop: number } {
  const stop = hasEnded(status) && stoppedAt ? Date.parse(stoppedAt) : Number.POSITIVE_INFINITY;
  return { start: Date.parse(startedAt), stop: Number.isNaN(stop) ? Number.POSITIVE_INFINITY : stop };
}
interface Progress {
  changed: boolean;
  /** What kept the tutor from explaining at this poll (n8n or the mock API not answering, the file). */
  trouble: string | null;
  /** A run left unexplained at this poll (n8n would not give it, the explainer failed on it). */
  note: string | null;
}

export class RunTutor extends ListenedPoll<TutorView> {
  readonly #feed: RunFeed;
  readonly #api: ApiCaller;
  readonly #explain: (input: ExplainInput) => Explanation;
  readonly #ledger: RunsLedger | null;
  readonly #onWriteError: ((error: Error) => void) | undefined;
  /** Each run's status when it was last fetched (explained, or found to be the checker's or gone). */
  readonly #seen = new Map<string, string>();
  /** The windows of the runs last listed: another run's overlap makes a run's requests uncertain. */
  #windows = new Map<string, { start: number; stop: number }>();
  /** Fetches of a run (and status) n8n did not answer, to leave it after MAX_TRIES. */
  readonly #failures = new Map<string, number>();
  #note: string | null = null;
  readonly #identityOf: (user: string) => Promise<Record<string, unknown> | null>;
  #runs: Explanation[] = [];
  #view: TutorView = { version: 0, trouble: null, runs: [] };

  constructor(options: TutorOptions) {
    super(options.pollMs ?? 1000);
    this.#feed = options.feed;
    this.#api = options.api;
    this.#identityOf = options.identityOf;
    this.#explain = options.explain ?? explainRun;
    this.#ledger = options.runsFile ? new RunsLedger(options.runsFile) : null;
    this.#onWriteError = options.onWriteError;
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
    if (progress.changed && this.#ledger !== null) {
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
    const { changed } = progress;
    const trouble = progress.trouble ?? this.#note;
    if (!changed && trouble === this.#view.trouble) return;
    this.#view = { version: this.#view.version + 1, trouble, runs: this.#runs };
    this.tell(this.#view);
  }

  /**
   * Explains each run that has ended or waits since it was last fetched, oldest first. n8n or the mock API
   * not answering ends the poll (the next one tries again); one run n8n will not give or the explainer
   * cannot explain is said and, after MAX_TRIES, left, so that it holds up no other.
   */
  async #explainNew(progress: Progress): Promise<void> {
    let heads: RunHead[];
    try {
      heads = await this.#feed.recent(RECENT_RUNS);
    } catch (error) {
      throw new Error(
        `Your runs cannot be read from n8n just now (${message(error)}); they are explained once it answers.`,
      );
    }
    this.#windows = new Map(heads.map((h) => [h.id, windowOf(h.startedAt, h.status, h.stoppedAt)]));
    await this.#ledger?.load();
    const due = heads.filter((h) => explainable(h.status) && this.#seen.get(h.id) !== h.status).reverse();
    let state: StateReading | null = null;
    /** When the state was read (this host's clock): with its `now`, the mock API's clock. */
    let stateReadAt = 0;
    for (const head of due) {
      let detail: RunDetail | null;
      try {
        detail = await this.#feed.detail(head.id);
      } catch (error) {
        progress.note = `Run ${head.id} cannot be read from n8n (${message(error)}).`;
        this.#failed(head.id, head.status);
        continue;
      }
      const status = detail?.head.status ?? head.status;
      if (detail === null || fromChecker(detail)) {
        this.#see(head.id, status);
        continue;
      }
      if (!explainable(status) || this.#seen.get(head.id) === status) continue;
      if (state === null) {
        stateReadAt = Date.now();
        state = await this.#state();
      }
      const identity = await this.#identity(detail);
      let explanation: Explanation;
      try {
        const overlapping = this.#overlaps(detail.head);
        explanation = this.#explain({ detail, state, overlapping, identity, stateReadAt });
      } catch (error) {
        progress.note = `Run ${head.id} could not be explained (${message(error)}).`;
        this.#see(head.id, status);
        continue;
      }
      this.#see(head.id, status);
      this.#keep(explanation);
      this.#ledger?.record(summaryOf(explanation));
      progress.changed = true;
    }
  }

  /** A run n8n would not give: tried again at the next polls, left after MAX_TRIES. */
  #failed(id: string, status: string): void {
    const key = `${id}|${status}`;
    const tries = (this.#failures.get(key) ?? 0) + 1;
    this.#failures.set(key, tries);
    if (this.#failures.size > SEEN_KEPT) this.#failures.clear();
    if (tries < MAX_TRIES) return;
    this.#failures.delete(key);
    this.#see(id, status);
  }

  /** Another run's [started, stopped] (a run not ended: up to now) overlaps this one's. */
  #overlaps(head: RunHead): boolean {
    const own = windowOf(head.startedAt, head.status, head.stoppedAt);
    const windows = new Map(this.#windows);
    for (const e of this.#runs)
      if (!windows.has(e.execution_id))
        windows.set(e.execution_id, windowOf(e.started_at, e.status, e.stopped_at));
    for (const [id, w] of windows) {
      if (id === head.id || Number.isNaN(w.start)) continue;
      if (w.start <= own.stop && own.start <= w.stop) return true;
    }
    return false;
  }

  #keep(explanation: Explanation): void {
    this.#runs = [explanation, ...this.#runs.filter((e) => e.execution_id !== explanation.execution_id)]
      .sort(
        (a, b) => b.started_at.localeCompare(a.started_at) || Number(b.execution_id) - Number(a.execution_id),
      )
      .slice(0, TUTOR_RUNS_SHOWN);
  }

  #see(id: string, status: string): void {
    this.#failures.delete(`${id}|${status}`);
    this.#seen.delete(id);
    this.#seen.set(id, status);
    for (const oldest of this.#seen.keys()) {
      if (this.#seen.size <= SEEN_KEPT) break;
      this.#seen.delete(oldest);
    }
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
