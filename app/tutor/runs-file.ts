/**
 * The tutor's ledger, kept in reports/runs.json (app/runs/file.ts): the newest summaries, how many
 * runs were explained in all and, per stage, how many stopped short of it; the newest explanations whole;
 * every run read and the status it was read at. It is the tutor's memory: a console started again reads it
 * and goes on, showing the same verdicts and reading no run again that it has read at the same status. A run
 * explained again (a waiting run that has ended) replaces its line and is counted once. Written whole,
 * atomically (a temp file renamed), so a reader never sees half a file. Without a path it is kept in memory.
 */
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../check-report/history.js';
import {
  EXPLAINED_KEPT,
  type ExplainedRun,
  RUNS_KEPT,
  type RunSummary,
  RunSummarySchema,
  type RunsFile,
  RunsFileSchema,
  SEEN_KEPT,
} from '../runs/file.js';
import type { StageName } from '../stages/stages.js';
import { summaryOf } from './explanation.js';

/** Runs remembered as counted beyond the file's lines, so one explained again is not counted twice. */
const COUNTED_KEPT = 1_000;

/** A run: its id and its start (n8n's ids start again at 1 in a lab made anew). */
export const runKey = (id: string, startedAt: string) => `${id}@${startedAt}`;
const keyOf = (e: { execution_id: string; started_at: string }) => runKey(e.execution_id, e.started_at);
const newestFirst = (a: { started_at: string }, b: { started_at: string }) =>
  b.started_at.localeCompare(a.started_at);

export class RunsLedger {
  readonly path: string | null;
  #lines: RunSummary[] = [];
  #explained: ExplainedRun[] = [];
  /** Each run read, by runKey: the status it was read at, oldest first. */
  readonly #seen = new Map<string, { execution_id: string; started_at: string; status: string }>();
  /** Each counted run's unmet stage (what it added to `tries`), by runKey, oldest first. */
  readonly #counted = new Map<string, StageName | null>();
  #total = 0;
  #tries: Partial<Record<StageName, number>> = {};
  #loaded: Promise<void> | undefined;

  constructor(path: string | null) {
    this.path = path;
  }

  /** Reads the file once: its counts, explanations and reads go on. A missing or unreadable file starts anew. */
  load(): Promise<void> {
    this.#loaded ??= (async () => {
      if (this.path === null) return;
      let json: unknown;
      try {
        json = JSON.parse(await readFile(this.path, 'utf8'));
      } catch {
        return;
      }
      const parsed = RunsFileSchema.safeParse(json);
      if (!parsed.success) return;
      const file = parsed.data;
      this.#lines = file.runs;
      this.#explained = file.explained;
      this.#total = file.total;
      this.#tries = { ...file.tries };
      for (const line of [...file.runs].reverse()) this.#counted.set(keyOf(line), line.unmet_stage);
      for (const seen of file.seen) this.#seen.set(keyOf(seen), seen);
    })();
    return this.#loaded;
  }

  /** The status a run was read at; undefined when it was never read. */
  seenStatus(id: string, startedAt: string): string | undefined {
    return this.#seen.get(runKey(id, startedAt))?.status;
  }

  /** Runs read while they waited (for their approval) and not read since: followed until they end. */
  waitingRuns(): { execution_id: string; started_at: string }[] {
    return [...this.#seen.values()].filter((s) => s.status === 'waiting');
  }

  /** A run read at a status (explained, or found to be the checker's or gone): not read again at it. */
  see(id: string, startedAt: string, status: string): void {
    const key = runKey(id, startedAt);
    this.#seen.delete(key);
    this.#seen.set(key, { execution_id: id, started_at: startedAt, status });
    for (const oldest of this.#seen.keys()) {
      if (this.#seen.size <= SEEN_KEPT) break;
      this.#seen.delete(oldest);
    }
  }

  /** The newest explanations, newest first. */
  get explained(): ExplainedRun[] {
    return this.#explained;
  }

  /** The explanation kept of a run, if any. */
  explanationOf(id: string, startedAt: string): ExplainedRun | undefined {
    const key = runKey(id, startedAt);
    return this.#explained.find((e) => keyOf(e) === key);
  }

  /** A run explained: kept whole, its line replaced (or added), counted once whatever it was before. */
  record(explanation: ExplainedRun): void {
    const key = keyOf(explanation);
    this.#explained = [explanation, ...this.#explained.filter((e) => keyOf(e) !== key)]
      .sort((a, b) => newestFirst(a, b) || Number(b.execution_id) - Number(a.execution_id))
      .slice(0, EXPLAINED_KEPT);
    const summary = summaryOf(explanation);
    if (!RunSummarySchema.safeParse(summary).success) return;
    if (this.#counted.has(key)) this.#count(this.#counted.get(key) ?? null, -1);
    else this.#total++;
    this.#counted.delete(key);
    this.#counted.set(key, summary.unmet_stage);
    this.#count(summary.unmet_stage, +1);
    while (this.#counted.size > COUNTED_KEPT) {
      const oldest = this.#counted.keys().next().value;
      if (oldest === undefined) break;
      this.#counted.delete(oldest);
    }
    this.#lines = [summary, ...this.#lines.filter((l) => keyOf(l) !== key)]
      .sort(newestFirst)
      .slice(0, RUNS_KEPT);
  }

  #count(stage: StageName | null, by: number): void {
    if (stage === null) return;
    const n = (this.#tries[stage] ?? 0) + by;
    if (n > 0) this.#tries[stage] = n;
    else delete this.#tries[stage];
  }

  snapshot(now: Date = new Date()): RunsFile {
    return RunsFileSchema.parse({
      kind: 'tutor-runs',
      updated_at: now.toISOString(),
      total: this.#total,
      tries: { ...this.#tries },
      runs: this.#lines,
      explained: this.#explained,
      seen: [...this.#seen.values()],
    });
  }

  async write(now: Date = new Date()): Promise<void> {
    if (this.path === null) return;
    await writeFileAtomic(this.path, `${JSON.stringify(this.snapshot(now), null, 2)}\n`);
  }
}
