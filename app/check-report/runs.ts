/**
 * The tutor's file of a lab's runs, `reports/runs.json`: the console's tutor writes it as it explains each
 * run the trainee makes, the class board and the class report read it (neither imports the tutor). Newest
 * first; a run waiting for its approval is written again when it ends.
 */
import { z } from 'zod';
import { StageNameSchema } from './report.js';

export const RUNS_FILE = 'runs.json';
/** How many runs the file keeps (the tries per stage count every run ever explained). */
export const RUNS_KEPT = 50;

/**
 * What the tutor made of a run: `as-asked` (every stage it reached did what the exercise asks of that
 * alert), `unmet` (the first stage that did not, `unmet_stage`), `waiting` (for its approval),
 * `cannot-tell` (the run's requests could not be told from another run's, or it is no alert of the exercise).
 */
export const RunVerdictSchema = z.enum(['as-asked', 'unmet', 'waiting', 'cannot-tell']);
export type RunVerdict = z.infer<typeof RunVerdictSchema>;

export const RunSummarySchema = z.object({
  execution_id: z.string(),
  /** The editor's address of the run (at the node to blame, when there is one). */
  url: z.string().nullable(),
  workflow: z.string(),
  /** Started with the editor's Execute workflow (n8n's manual mode), not by a POST to its webhook. */
  from_editor: z.boolean(),
  /** n8n's status: success, error, waiting, canceled, crashed. */
  status: z.string(),
  started_at: z.iso.datetime(),
  stopped_at: z.iso.datetime().nullable(),
  /** The alert's row of the acceptance matrix (positive, invalid_input, ...), or `other`. */
  kind: z.string(),
  /** The furthest stage the run went through; null when none is known. */
  reached: StageNameSchema.nullable(),
  verdict: RunVerdictSchema,
  unmet_stage: StageNameSchema.nullable(),
});
export type RunSummary = z.infer<typeof RunSummarySchema>;

export const RunsFileSchema = z.object({
  kind: z.literal('tutor-runs'),
  updated_at: z.iso.datetime(),
  /** Every run explained since the file began. */
  total: z.int(),
  /** Per stage, how many runs stopped short of it (their unmet stage): how many tries it took. */
  tries: z.partialRecord(StageNameSchema, z.int()),
  runs: z.array(RunSummarySchema).max(RUNS_KEPT),
});
export type RunsFile = z.infer<typeof RunsFileSchema>;
