/**
 * The stage checker's result file, `reports/check-last.json`: one declaration, in a room of its own
 * because the checker writes it and the console and the class report read it (neither imports the checker).
 */
import { z } from 'zod';
import { REPORT_FILE } from '../lab-settings/names.js';
import { STAGE_NAMES } from '../stages/stages.js';

/** A stage's name as a report holds it: one of app/stages' STAGE_NAMES. */
export const StageNameSchema = z.enum(STAGE_NAMES);

/**
 * pass / fail; unjudged: the check needs something the checker does not have (a field name the seed leaves
 * open and no mapping names, or n8n's execution data without an API key). Unjudged never fails a stage.
 */
export const ExpectationStatusSchema = z.enum(['pass', 'fail', 'unjudged']);
export type ExpectationStatus = z.infer<typeof ExpectationStatusSchema>;

/**
 * The n8n run a stimulus caused, and where in it the expectation went wrong: what a FAIL or UNJUDGED line
 * points at so that the trainee opens that very run in the editor. `execution_id` and `url` are null when
 * nothing ran for the stimulus (then `why` says so); `node` is null when no one node is to blame.
 */
export const RunPointerSchema = z.object({
  /** n8n's execution id, when n8n ran something for the stimulus. */
  execution_id: z.string().nullable(),
  /**
   * The editor's address of that run, opening the node to blame when there is one:
   * `<editor>/workflow/<workflow id>/executions/<execution id>[/<node id>]`.
   */
  url: z.string().nullable(),
  /** n8n's status of the run: success, error, waiting, running, canceled, crashed, new; null when none. */
  status: z.string().nullable(),
  /** The node where it went wrong: the node that errored, the last node that ran where a later one was
   * needed, or the first node whose output lacks what the expectation needed. */
  node: z.string().nullable(),
  /** One line in the trainee's terms: "Record errored: ...", "nothing after Validate ran",
   * "Enrich's output has no risk_score", "nothing ran: is the workflow published, ...". */
  why: z.string(),
});
export type RunPointer = z.infer<typeof RunPointerSchema>;

export const ExpectationResultSchema = z.object({
  stage: StageNameSchema,
  /** The stimulus that was sent, e.g. "alert without source_ip". */
  stimulus: z.string(),
  /** What the seed requires, in the trainee's terms. */
  expectation: z.string(),
  status: ExpectationStatusSchema,
  /** What to change, in the trainee's terms; null when the expectation passed. */
  hint: z.string().nullable(),
  /**
   * On a FAIL, what was wanted and what came: `<field or request>: want <wanted>, got <what came>`, e.g.
   * `POST /blocklist: want 1 request, got 0` (several joined by `; `); null on PASS. Older reports, and
   * the one line of a check that stopped, may hold a plain note.
   */
  detail: z.string().nullable(),
  /** When the expectation was judged (ISO 8601). */
  at: z.iso.datetime(),
  /** The run this verdict is about, on FAIL and UNJUDGED when the checker could look (older reports lack
   * the field; a pass carries none). */
  run: RunPointerSchema.nullable().default(null),
});
export type ExpectationResult = z.infer<typeof ExpectationResultSchema>;

export const StageResultSchema = z.object({
  stage: StageNameSchema,
  /** fail when one expectation failed; pass otherwise (unjudged ones are listed, not counted). */
  status: z.enum(['pass', 'fail']),
  counts: z.object({ pass: z.int(), fail: z.int(), unjudged: z.int() }),
});
export type StageResult = z.infer<typeof StageResultSchema>;

/**
 * The check stopped before judging: nothing listens on a webhook path (n8n answers 404 "not registered"),
 * so every expectation would fail for that one reason. The report says it once.
 */
export const StoppedSchema = z.object({
  stage: StageNameSchema,
  /** The webhook path that nothing listens on. */
  path: z.string(),
  /** One line: what is wrong and how to fix it. */
  message: z.string(),
});
export type Stopped = z.infer<typeof StoppedSchema>;

export const CheckReportSchema = z.object({
  kind: z.literal('stage-check'),
  /** The stage asked for (`all` or a stage name): every stage up to it was checked. */
  requested: z.union([StageNameSchema, z.literal('all')]),
  target: z.enum(['reference', 'n8n']),
  workflow_url: z.string(),
  api: z.string(),
  started_at: z.iso.datetime(),
  finished_at: z.iso.datetime(),
  seconds: z.number(),
  passed: z.boolean(),
  stages: z.array(StageResultSchema),
  results: z.array(ExpectationResultSchema),
  /** What the checker itself met on the way (a retried webhook 404, no API key); never a verdict. */
  notes: z.array(z.string()),
  /** Set when the check stopped early (older reports lack the field). */
  stopped: StoppedSchema.nullable().default(null),
});
export type CheckReport = z.infer<typeof CheckReportSchema>;

/** Where the checker writes its last result and the console reads it. */
export const CHECK_REPORT_PATH = `reports/${REPORT_FILE}`;
