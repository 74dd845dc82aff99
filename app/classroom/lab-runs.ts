/**
 * A trainee's runs as the class report and the board show them, from the tutor's runs.json
 * (app/runs/file.ts): how many runs the tutor explained, the last one (the stage it reached, its
 * verdict, when, its link), and per stage how many tries it took (the runs whose unmet stage it was).
 */
import { type RunSummary, RunsFileSchema, type RunVerdict } from '../runs/file.js';
import { STAGE_NAMES, type StageName } from '../stages/stages.js';

export interface LabRuns {
  /** Every run the tutor explained since its file began. */
  total: number;
  /** The newest run (the file keeps them newest first); null when the file holds none. */
  last: RunSummary | null;
  /** Per stage, in stage order, the runs whose unmet stage it was; a stage that took none is absent. */
  tries: Partial<Record<StageName, number>>;
}

/** The verdict in a word, as the page says it (the CSV and the JSON keep the tutor's own value). */
export const RUN_VERDICT_WORD: Record<RunVerdict, string> = {
  'as-asked': 'as asked',
  unmet: 'unmet',
  waiting: 'waiting',
  stopped: 'stopped',
  'cannot-tell': 'cannot tell',
};

/** The lab's runs, or null when it has none yet: no file, or one that is not the tutor's (the model is also
 * fed by a document on stdin, so the file is parsed here whatever lab-folders.ts made of it). */
export function labRunsOf(file: unknown): LabRuns | null {
  if (file === null || file === undefined) return null;
  const parsed = RunsFileSchema.safeParse(file);
  if (!parsed.success) return null;
  const { total, tries, runs } = parsed.data;
  const taken: Partial<Record<StageName, number>> = {};
  for (const stage of STAGE_NAMES) {
    const n = tries[stage];
    if (n !== undefined && n > 0) taken[stage] = n;
  }
  return { total, last: runs[0] ?? null, tries: taken };
}

/** "enrich 3, decide 1": the stages that took tries, in stage order; '' when none did. */
export function triesText(tries: LabRuns['tries']): string {
  return STAGE_NAMES.flatMap((s) => (tries[s] === undefined ? [] : [`${s} ${tries[s]}`])).join(', ');
}
