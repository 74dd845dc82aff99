/**
 * The Webhook stage's "all seven mapped fields appear in the execution data": the run the stimulus caused
 * (found through n8n's public API, app/n8n/runs.ts) must show each of the seven fields in its node data
 * with the value that was sent.
 */
import { walk } from '../judging/approval-request.js';

/** The Webhook stage's execution-data judgement (n8n public API), when the checker could make one. */
export type ExecutionFinding =
  | { kind: 'no-key' }
  | { kind: 'not-found'; detail: string }
  | { kind: 'error'; detail: string }
  | { kind: 'found'; executionId: string; missing: string[] };

/** The sent fields that no node's data shows under their own name with the value sent. */
export function missingFields(runData: unknown, sent: Record<string, unknown>): string[] {
  const seen = new Set<string>();
  walk(runData, (key, value) => {
    if (key !== null && Object.hasOwn(sent, key) && Object.is(sent[key], value)) seen.add(key);
  });
  return Object.keys(sent).filter((field) => !seen.has(field));
}
