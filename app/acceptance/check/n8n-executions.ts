/**
 * The Webhook stage's "all seven mapped fields appear in the execution data", read through n8n's public
 * API (`X-N8N-API-KEY`): the newest executions are searched for the one that carries the alert's event_id,
 * and each of the seven fields must appear in its node data with the value that was sent.
 */
import { z } from 'zod';
import { walk } from '../../lab/approval-request.js';
import type { ExecutionFinding } from './scenarios.js';

const ListSchema = z.looseObject({ data: z.array(z.looseObject({ id: z.union([z.string(), z.number()]) })) });
const ExecutionSchema = z.looseObject({
  id: z.union([z.string(), z.number()]),
  data: z
    .looseObject({ resultData: z.looseObject({ runData: z.record(z.string(), z.unknown()) }) })
    .nullish(),
});

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
  const base = query.n8nUrl.replace(/\/+$/, '');
  const headers = { 'x-n8n-api-key': query.apiKey, accept: 'application/json' };
  const deadline = performance.now() + query.timeoutMs;
  let lastDetail = 'no execution carries the event_id';
  for (;;) {
    try {
      const list = await fetch(`${base}/api/v1/executions?limit=50`, { headers });
      if (list.status === 401 || list.status === 403) {
        await list.body?.cancel();
        return {
          kind: 'error',
          detail: `GET /api/v1/executions answered ${list.status}: the API key is not accepted`,
        };
      }
      const parsed = ListSchema.safeParse(await list.json());
      if (!list.ok || !parsed.success) {
        lastDetail = `GET /api/v1/executions answered ${list.status}`;
      } else {
        for (const { id } of parsed.data.data) {
          const answer = await fetch(`${base}/api/v1/executions/${id}?includeData=true`, { headers });
          const text = await answer.text();
          if (!answer.ok || !text.includes(query.eventId)) continue;
          const execution = ExecutionSchema.safeParse(JSON.parse(text));
          if (!execution.success || !execution.data.data) continue;
          return {
            kind: 'found',
            executionId: String(id),
            missing: missingFields(execution.data.data.resultData.runData, query.sent),
          };
        }
      }
    } catch (error) {
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
