/**
 * What the tutor says of one run, as the console's "Your runs" panel shows it: read from the run itself
 * (n8n's execution data) and from what the mock API received from it, judged by the checker's own
 * expectations. Never a claim the run and the state do not show: what cannot be told says so. The model
 * and its file format are the tutor's file's (app/runs/file.ts), which the console keeps across
 * restarts; here, the types the tutor writes and the line the class tools keep of each.
 */
import type { z } from 'zod';
import type { ExplainedRun, ReceivedSchema, RunSummary, StageStepSchema, UnmetSchema } from '../runs/file.js';

export type StageStep = z.infer<typeof StageStepSchema>;
export type Received = z.infer<typeof ReceivedSchema>;
export type Unmet = z.infer<typeof UnmetSchema>;
export type Explanation = ExplainedRun;

/** The line the class board and the class report keep of an explanation. */
export function summaryOf(e: Explanation): RunSummary {
  const reached = e.stages.at(-1)?.stage ?? null;
  return {
    execution_id: e.execution_id,
    url: e.url,
    workflow: e.workflow,
    from_editor: e.from_editor,
    status: e.status,
    started_at: e.started_at,
    stopped_at: e.stopped_at,
    kind: e.kind,
    reached,
    verdict: e.verdict,
    unmet_stage: e.unmet?.stage ?? null,
  };
}
