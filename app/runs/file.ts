/**
 * The tutor's file of a lab's runs, `reports/runs.json`: the console's tutor writes it as it explains each
 * run the trainee makes, the class board and the class report read it (neither imports the tutor). Newest
 * first; a run waiting for its approval is written again when it ends. It is also the tutor's memory: the
 * explanations the console's panel shows and every run already read with the status it was read at, so that
 * a console started again (make stop / make start, an update, a reboot) shows the same verdicts, word for
 * word, and reads no run twice against a later state.
 */
import { z } from 'zod';
import { StageNameSchema } from '../check-report/report.js';
import { RUNS_FILE } from '../lab-settings/names.js';

export { RUNS_FILE };
/** How many runs the file keeps (the tries per stage count every run ever explained). */
export const RUNS_KEPT = 50;
/** How many whole explanations the file keeps: the console's "Your runs" panel shows them. */
export const EXPLAINED_KEPT = 30;
/** How many runs the file remembers as read (with the status they were read at). */
export const SEEN_KEPT = 500;

/**
 * What the tutor made of a run: `as-asked` (every stage it reached did what the exercise asks of that
 * alert), `unmet` (the first stage that did not, `unmet_stage`), `waiting` (for its approval), `stopped`
 * (canceled or crashed before it ended: by Reset, in the editor, or by n8n; neither judged nor a try),
 * `cannot-tell` (what it sent cannot be told from another run's or is no longer there to read, or it is no
 * alert of the exercise).
 */
export const RunVerdictSchema = z.enum(['as-asked', 'unmet', 'waiting', 'stopped', 'cannot-tell']);
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

/** A stage the run went through and what it did there, in the trainee's terms. */
export const StageStepSchema = z.object({
  stage: StageNameSchema,
  title: z.string(),
  /** The run's nodes of that stage, in the order they ran. */
  nodes: z.array(z.string()),
  /** One line: "GET /identity/lab-admin answered 200", "stopped the run: Alert rejected: ...". */
  did: z.string(),
});

/** What one of the four systems received from the run. */
export const ReceivedSchema = z.object({
  system: z.enum(['identity', 'case', 'notification', 'blocklist']),
  /** `POST /blocklist (201)`. */
  request: z.string(),
  /** What it held for the alert's event when the run was read, when the request wrote something. */
  holds: z.string().nullable(),
});

/** The first expectation the run did not meet, as the checker would say it. */
export const UnmetSchema = z.object({
  stage: StageNameSchema,
  expectation: z.string(),
  hint: z.string(),
  /** `<field or request>: want <x>, got <y>`. */
  mismatch: z.string().nullable(),
  /** The node to blame and why (the checker's run pointer). */
  node: z.string().nullable(),
  why: z.string(),
});

/**
 * One run explained, as the console's "Your runs" panel shows it: read from the run itself (n8n's execution
 * data) and from what the mock API received from it within its own window, when it ended (or began to
 * wait), and kept as read.
 */
export const ExplainedRunSchema = z.object({
  execution_id: z.string(),
  /** The editor's address of the run; at the node to blame when there is one. */
  url: z.string().nullable(),
  workflow: z.string(),
  from_editor: z.boolean(),
  /** n8n's status: success, error, waiting, canceled, crashed. */
  status: z.string(),
  started_at: z.string(),
  stopped_at: z.string().nullable(),
  /** The alert the Webhook received (its body, cut to ALERT_SHOWN_BYTES), null when the run has none. */
  alert: z.record(z.string(), z.unknown()).nullable(),
  /** The alert's row of the acceptance matrix, or `other`. */
  kind: z.string(),
  /** The row in words: "positive: confidence 92, a new event, the approver approved". */
  kind_text: z.string(),
  stages: z.array(StageStepSchema),
  received: z.array(ReceivedSchema),
  /** False when what it received cannot be told for certain (another run overlapped it, or it is gone). */
  received_certain: z.boolean(),
  verdict: RunVerdictSchema,
  unmet: UnmetSchema.nullable(),
  /** One line for the verdict: "stopped after Valid?, where Enrich was expected". */
  summary: z.string(),
  /** When the run was busy (ms, n8n's clock; app/runs/run.ts BusySpan), as it was read. */
  busy: z.array(z.tuple([z.number(), z.number()])).optional(),
});
export type ExplainedRun = z.infer<typeof ExplainedRunSchema>;

/** A run the tutor has read, and the status it had then: read again only once that status has changed. */
export const SeenRunSchema = z.object({
  execution_id: z.string(),
  /** With the id, the run: n8n's ids start again at 1 in a lab made anew. */
  started_at: z.string(),
  status: z.string(),
});
export type SeenRun = z.infer<typeof SeenRunSchema>;

export const RunsFileSchema = z.object({
  kind: z.literal('tutor-runs'),
  updated_at: z.iso.datetime(),
  /** Every run explained since the file began. */
  total: z.int(),
  /** Per stage, how many runs stopped short of it (their unmet stage): how many tries it took. */
  tries: z.partialRecord(StageNameSchema, z.int()),
  runs: z.array(RunSummarySchema).max(RUNS_KEPT),
  /** The newest explanations, whole, newest first: what the console's panel shows. */
  explained: z.array(ExplainedRunSchema).max(EXPLAINED_KEPT).default([]),
  /** The runs read, oldest first. */
  seen: z.array(SeenRunSchema).max(SEEN_KEPT).default([]),
});
export type RunsFile = z.infer<typeof RunsFileSchema>;
