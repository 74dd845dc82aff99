/**
 * The tutor's ledger of reports/runs.json (app/check-report/runs.ts): the newest summaries, how many runs
 * were explained in all and, per stage, how many stopped short of it. A run explained again (a waiting run
 * that has ended) replaces its line and is counted once; the counts go on from the file a previous console
 * wrote. Written whole, atomically (a temp file renamed), so a reader never sees half a file.
 */
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../check-report/history.js';
import {
  RUNS_KEPT,
  type RunSummary,
  RunSummarySchema,
  type RunsFile,
  RunsFileSchema,
} from '../check-report/runs.js';
import type { StageName } from '../stages/stages.js';

/** Runs remembered as counted beyond the file's lines, so one explained again is not counted twice. */
const COUNTED_KEPT = 1_000;

export class RunsLedger {
  readonly path: string;
  #lines: RunSummary[] = [];
  /** Each counted run's unmet stage (what it added to `tries`), oldest first. */
  readonly #counted = new Map<string, StageName | null>();
  #total = 0;
  #tries: Partial<Record<StageName, number>> = {};
  #loaded: Promise<void> | undefined;

  constructor(path: string) {
    this.path = path;
  }

  /** Reads the file once: its counts go on. A missing or unreadable file starts a new one. */
  load(): Promise<void> {
    this.#loaded ??= (async () => {
      let text: string;
      try {
        text = await readFile(this.path, 'utf8');
      } catch {
        return;
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        return;
      }
      const parsed = RunsFileSchema.safeParse(json);
      if (!parsed.success) return;
      this.#lines = parsed.data.runs;
      this.#total = parsed.data.total;
      this.#tries = { ...parsed.data.tries };
      for (const line of [...parsed.data.runs].reverse())
        this.#counted.set(line.execution_id, line.unmet_stage);
    })();
    return this.#loaded;
  }

  /** A run's summary: its line replaced (or added), counted once whatever it was before. */
  record(summary: RunSummary): void {
    if (!RunSummarySchema.safeParse(summary).success) return;
    const id = summary.execution_id;
    if (this.#counted.has(id)) this.#count(this.#counted.get(id) ?? null, -1);
    else this.#total++;
    this.#counted.delete(id);
    this.#counted.set(id, summary.unmet_stage);
    this.#count(summary.unmet_stage, +1);
    while (this.#counted.size > COUNTED_KEPT) {
      const oldest = this.#counted.keys().next().value;
      if (oldest === undefined) break;
      this.#counted.delete(oldest);
    }
    this.#lines = [summary, ...this.#lines.filter((l) => l.execution_id !== id)]
      .sort((a, b) => b.started_at.localeCompare(a.started_at))
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
    });
  }

  async write(now: Date = new Date()): Promise<void> {
    await writeFileAtomic(this.path, `${JSON.stringify(this.snapshot(now), null, 2)}\n`);
  }
}
