/**
 * The Webhook stage's "all seven mapped fields appear in the execution data", read through n8n's public
 * API (`X-N8N-API-KEY`): the newest executions are searched for the one that carries the alert's event_id,
 * and each of the seven fields must appear in its node data with the value that was sent.
 */
import { z } from 'zod';
import { walk } from '../harness/approval-request.js';
import { N8nError, PublicApi } from './client.js';

const ExecutionSchema = z.looseObject({
  id: z.union([z.string(), z.number()]),
  data: z
    .looseObject({ resultData: z.looseObject({ runData: z.record(z.string(), z.unknown()) }) })
    .nullish(),
});

/** The Webhook stage's execution-data judgement (n8n public API), when the checker could make one. */
export type ExecutionFinding =
  | { kind: 'no-key' }
  | { kind: 'not-found'; detail: string }
  | { kind: 'error'; detail: string }
  | { kind: 'found'; executionId: string; missing: string[] };

export interface ExecutionQuery {
  n8nUrl: string;
  apiKey: string;
  eventId: string;
  /** The fields to find, with the values the checker sent. */
  sent: Record<string, unknown>;
  /** How long to keep looking: an execution is saved when it ends (or starts waiting). */
  timeoutMs: number;
  pollMs?: number;
}

export async function findExecutionFields(query: ExecutionQuery): Promise<ExecutionFinding> {
  const api = new PublicApi({ url: query.n8nUrl }, query.apiKey);
  const deadline = performance.now() + query.timeoutMs;
  let lastDetail = 'no execution carries the event_id';
  for (;;) {
    try {
      for (const id of await api.recentExecutionIds(50)) {
        const execution = ExecutionSchema.safeParse(await api.execution(id).catch(() => null));
        if (!execution.success || !execution.data.data) continue;
        if (!JSON.stringify(execution.data).includes(query.eventId)) continue;
        return {
          kind: 'found',
          executionId: id,
          missing: missingFields(execution.data.data.resultData.runData, query.sent),
        };
      }
    } catch (error) {
      if (error instanceof N8nError && (error.status === 401 || error.status === 403)) {
        return {
          kind: 'error',
          detail: `GET /api/v1/executions answered ${error.status}: the API key is not accepted`,
        };
      }
      lastDetail = error instanceof Error ? error.message : String(error);
    }
    if (performance.now() > deadline) return { kind: 'not-found', detail: lastDetail };
    await new Promise((resolve) => setTimeout(resolve, query.pollMs ?? 1000));
  }
}

/** The sent fields that no node's data shows under their own name with the value sent. */
export function missingFields(runData: unknown, sent: Record<string, unknown>): string[] {
  const seen = new Set<string>();
  walk(runData, (key, value) => {
    if (key !== null && Object.hasOwn(sent, key) && Object.is(sent[key], value)) seen.add(key);
  });
  return Object.keys(sent).filter((field) => !seen.has(field));
}
