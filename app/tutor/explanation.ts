/**
 * What the tutor says of one run, as the console's "Your runs" panel shows it: read from the run itself
 * (n8n's execution data) and from what the mock API received from it, judged by the checker's own
 * expectations. Never a claim the run and the state do not show: what cannot be told says so. The model
 * and its file format are the tutor's file's (app/check-report/runs.ts), which the console keeps across
 * restarts; here, the types the tutor writes and the line the class tools keep of each.
 */
import type { z } from 'zod';
import type {
  ExplainedRun,
  ReceivedSchema,
  RunSummary,
  StageStepSchema,
  UnmetSchema,
} from '../check-report/runs.js';

export type StageStep = z.infer<typeof StageStepSchema>;
export type Received = z.infer<typeof ReceivedSchema>;
export type Unmet = z.infer<typeof UnmetSchema>;
export type Explanation = ExplainedRun;

/** The most of an alert an explanation keeps (its JSON), so that a page holds it whatever was posted. */
export const ALERT_SHOWN_BYTES = 4096;
/** The most of one string field of an alert shown, when the alert is over ALERT_SHOWN_BYTES. */
const FIELD_SHOWN_CHARS = 200;
/** The most fields of a cut alert shown. */
const FIELDS_SHOWN = 40;

/**
 * The alert as an explanation keeps it: whole when its JSON is within ALERT_SHOWN_BYTES, else its first
 * fields, long strings and nested values cut, with `…` saying what was left out.
 */
export function alertShown(alert: Record<string, unknown> | null): Record<string, unknown> | null {
  if (alert === null) return null;
  const json = JSON.stringify(alert);
  if (Buffer.byteLength(json) <= ALERT_SHOWN_BYTES) return alert;
  const cut: Record<string, unknown> = {};
  const keys = Object.keys(alert);
  for (const key of keys.slice(0, FIELDS_SHOWN)) {
    const value = alert[key];
    const shown = typeof value === 'string' ? value : JSON.stringify(value);
    cut[key.slice(0, FIELD_SHOWN_CHARS)] =
      typeof value === 'string' || typeof value === 'object'
        ? shown.length > FIELD_SHOWN_CHARS
          ? `${shown.slice(0, FIELD_SHOWN_CHARS)}… (${shown.length} characters)`
          : value
        : value;
  }
  cut['…'] =
    `the alert is ${Buffer.byteLength(json)} bytes: ${Math.min(keys.length, FIELDS_SHOWN)} of its ${keys.length} fields shown, long values cut`;
  return cut;
}

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
