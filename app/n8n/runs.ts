/**
 * The runs n8n made for the checker's stimuli, through its public API (`X-N8N-API-KEY`): the execution a
 * stimulus caused is the one of the workflow that listens on the stimulus's webhook path, started after the
 * stimulus was sent, whose data carries the stimulus's event_id. Read as a RunView (app/runs/run.ts):
 * status, the nodes that ran in order with their errors and output, and the editor's address of the run.
 */
import { z } from 'zod';
import {
  type BusySpan,
  mergeBusy,
  type RunLookup,
  type RunNode,
  type RunQuery,
  type RunSource,
  type RunView,
} from '../runs/run.js';
import { N8nError, PublicApi, WorkflowNodeSchema } from './client.js';

/** A short limit per call: a paused or overloaded n8n must not hold the check up for long per poll. */
const CALL_TIMEOUT_MS = 5_000;
/** n8n's clock and the checker's may differ a little (another container); a run is searched from this
 * long before the stimulus was sent (the event_id, not the time, identifies it; a duplicate delivery's
 * first run has ended before the second is sent, and is excluded by its id). */
const CLOCK_SLACK_MS = 1_000;

const RunEntrySchema = z.looseObject({
  startTime: z.number().optional(),
  executionTime: z.number().optional(),
  executionIndex: z.number().optional(),
  error: z.looseObject({ message: z.string().optional() }).nullish(),
  data: z.looseObject({ main: z.array(z.unknown()).optional() }).nullish(),
});

/** An execution as n8n's public API gives it with its data (`includeData=true`); only what the lab reads is typed. */
export const ExecutionSchema = z.looseObject({
  id: z.union([z.string(), z.number()]),
  status: z.string(),
  workflowId: z.string().nullish(),
  startedAt: z.string().nullish(),
  data: z
    .looseObject({
      resultData: z.looseObject({
        runData: z.record(z.string(), z.array(RunEntrySchema)).optional(),
        lastNodeExecuted: z.string().nullish(),
      }),
    })
    .nullish(),
  workflowData: z.looseObject({ nodes: z.array(WorkflowNodeSchema) }).nullish(),
});
export type Execution = z.infer<typeof ExecutionSchema>;

const SummarySchema = z.looseObject({ status: z.string() });
const ItemSchema = z.looseObject({ json: z.unknown() });

export interface N8nRunOptions {
  n8nUrl: string;
  apiKey: string;
  /** The editor's address as the trainee's browser reaches it (the run's link is built on it). */
  editorUrl: string;
}

export function n8nRunSource(options: N8nRunOptions): RunSource {
  const api = new PublicApi({ url: options.n8nUrl, timeoutMs: CALL_TIMEOUT_MS }, options.apiKey);
  const editor = options.editorUrl.replace(/\/+$/, '');
  const workflowOfPath = new Map<string, string | undefined>();

  /** The published workflow whose Webhook node listens on the path, as n8n says now; undefined: none. A
   * path written with a leading or trailing slash is the same path to n8n. */
  async function holderOf(path: string): Promise<string | undefined> {
    const bare = (p: unknown) => (typeof p === 'string' ? p.replace(/^\/+|\/+$/g, '') : p);
    const workflows = await api.listWorkflows({ active: true });
    return workflows.find((w) =>
      (w.activeVersion?.nodes ?? w.nodes).some(
        (n) => n.type === 'n8n-nodes-base.webhook' && bare(n.parameters?.path) === bare(path),
      ),
    )?.id;
  }

  /** The published workflow whose Webhook node listens on the path; undefined: search every workflow. */
  async function workflowFor(path: string): Promise<string | undefined> {
    if (workflowOfPath.has(path)) return workflowOfPath.get(path);
    const holder = await holderOf(path);
    workflowOfPath.set(path, holder);
    return holder;
  }

  return {
    async find(query: RunQuery): Promise<RunLookup> {
      try {
        const workflowId = await workflowFor(query.path);
        const startedAfter = new Date(query.sentAt.getTime() - CLOCK_SLACK_MS).toISOString();
        const lists = await Promise.all(
          [false, true].map((running) =>
            api.executionsStartedAfter({ workflowId, startedAfter, running, limit: 20 }),
          ),
        );
        const candidates = lists
          .flat()
          .map((raw) => ExecutionSchema.safeParse(raw))
          .flatMap((p) => (p.success ? [p.data] : []))
          .filter((e) => !query.exclude.includes(String(e.id)))
          .filter((e) => e.data != null && JSON.stringify(e.data).includes(query.eventId))
          .sort((a, b) => (a.startedAt ?? '').localeCompare(b.startedAt ?? ''));
        const first = candidates[0];
        return first === undefined ? { kind: 'none' } : { kind: 'found', run: viewOf(first, editor) };
      } catch (error) {
        const refused = error instanceof N8nError && (error.status === 401 || error.status === 403);
        return { kind: 'unreachable', detail: describe(error), refused };
      }
    },
    async status(id: string): Promise<string | null> {
      try {
        const parsed = SummarySchema.safeParse(await api.executionSummary(id));
        return parsed.success ? parsed.data.status : null;
      } catch {
        return null;
      }
    },
    async listens(path: string): Promise<boolean | null> {
      try {
        return (await holderOf(path)) !== undefined;
      } catch {
        return null;
      }
    },
    async stop(path: string, since: Date): Promise<boolean> {
      try {
        const workflowId = await workflowFor(path);
        const startedAfter = new Date(since.getTime() - CLOCK_SLACK_MS).toISOString();
        await api.stopExecutionsSince({ workflowId, startedAfter });
        return true;
      } catch (error) {
        // A refusal is an answer (nothing to stop, or a key that may not stop); silence is not.
        return error instanceof N8nError && error.status !== null;
      }
    },
  };
}

/** An execution as a RunView: its nodes in the order they ran. */
export function viewOf(execution: Execution, editor: string): RunView {
  const id = String(execution.id);
  const runData = execution.data?.resultData.runData ?? {};
  const definitions = new Map((execution.workflowData?.nodes ?? []).map((n) => [n.name, n]));
  const order = (runs: z.infer<typeof RunEntrySchema>[]) =>
    runs[0]?.executionIndex ?? runs[0]?.startTime ?? Number.MAX_SAFE_INTEGER;
  const nodes: RunNode[] = Object.entries(runData)
    .sort(([, a], [, b]) => order(a) - order(b))
    .map(([name, runs]) => {
      const definition = definitions.get(name);
      const url = definition?.parameters?.url;
      const nodeId = definition?.id;
      return {
        id: typeof nodeId === 'string' ? nodeId : null,
        name,
        type: definition?.type ?? null,
        error: runs.find((r) => r.error != null)?.error?.message ?? null,
        output: runs.flatMap((r) => outputItems(r.data?.main)),
        url: typeof url === 'string' ? url : null,
      };
    });
  // Each node's run from its start for its time (a Wait node resumed is run again from its resume: n8n
  // replaces its entry), so the time it waited is no node's.
  const busy = mergeBusy(
    Object.values(runData).flatMap((runs) =>
      runs.flatMap((r): BusySpan[] =>
        r.startTime === undefined ? [] : [[r.startTime, r.startTime + (r.executionTime ?? 0)]],
      ),
    ),
  );
  return {
    id,
    url: execution.workflowId ? `${editor}/workflow/${execution.workflowId}/executions/${id}` : null,
    status: execution.status,
    nodes,
    lastNode: execution.data?.resultData.lastNodeExecuted ?? nodes.at(-1)?.name ?? null,
    ...(busy.length > 0 ? { busy } : {}),
  };
}

/** Each output item's json, over every output of the node. */
function outputItems(main: unknown[] | undefined): unknown[] {
  return (main ?? []).flatMap((output) =>
    Array.isArray(output)
      ? output.flatMap((item) => {
          const parsed = ItemSchema.safeParse(item);
          return parsed.success ? [parsed.data.json] : [];
        })
      : [],
  );
}

function describe(error: unknown): string {
  if (error instanceof N8nError && (error.status === 401 || error.status === 403))
    return `n8n's API answered ${error.status}: the API key is not accepted`;
  return error instanceof Error ? error.message : String(error);
}
