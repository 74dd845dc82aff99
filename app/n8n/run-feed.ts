/**
 * The trainee's runs as n8n 2.41.1's public API lists them (`X-N8N-API-KEY`), for the console's tutor
 * (app/tutor/tutor.ts): the newest executions cheaply, without their data, running and waiting ones
 * included (n8n's list leaves a running execution out unless asked with status=running), and one
 * execution with its data as a RunDetail: its nodes in the order they ran (./runs.ts viewOf), the editor's
 * address of the run, the workflow's name, the Webhook node's item and how the run was started.
 */
import { z } from 'zod';
import { type RunDetail, type RunFeed, type RunHead, RunTooLargeError } from '../runs/run.js';
import { N8nError } from './client.js';
import { ExecutionSchema, viewOf } from './runs.js';

/** A short limit per call: the tutor polls every second while a page is open; a stuck n8n must not pile up. */
const CALL_TIMEOUT_MS = 5_000;
/** The most one list asks for (n8n's own cap on a page is 250). */
const MAX_LIMIT = 100;
/**
 * The most of one run's data read (its JSON): the guide's runs are tens of KiB; a run past this is said to be
 * too large rather than read into the console's memory (its parse takes several times its size).
 */
export const MAX_RUN_BYTES = 8 * 1024 * 1024;
const WEBHOOK_TYPE = 'n8n-nodes-base.webhook';

export interface N8nRunFeedOptions {
  /** n8n as this process reaches it (compose: http://n8n:5678). */
  n8nUrl: string;
  /** A public-API key with execution:list and execution:read. */
  apiKey: string;
  /** The editor's address as the trainee's browser reaches it (each run's link is built on it). */
  editorUrl: string;
  fetchImpl?: typeof fetch;
  timeoutMs?: number;
}

/** An execution as n8n's list gives it (no data); what is not typed here is kept. */
const HeadSchema = z.looseObject({
  id: z.union([z.string(), z.number()]),
  status: z.string(),
  startedAt: z.string().nullish(),
  stoppedAt: z.string().nullish(),
  workflowId: z.union([z.string(), z.number()]).nullish(),
  mode: z.string().nullish(),
});
type Head = z.infer<typeof HeadSchema>;
const ListSchema = z.looseObject({ data: z.array(z.unknown()) });
/** What a detail adds to ExecutionSchema: how it started, when it stopped, the workflow's name. */
const DetailExtraSchema = z.looseObject({
  mode: z.string().nullish(),
  stoppedAt: z.string().nullish(),
  workflowData: z.looseObject({ name: z.string().optional() }).nullish(),
});
const TriggerSchema = z.looseObject({ headers: z.unknown().optional(), body: z.unknown().optional() });
const ErrorBodySchema = z.looseObject({ message: z.string().optional() });

export function n8nRunFeed(options: N8nRunFeedOptions): RunFeed {
  const base = options.n8nUrl.replace(/\/+$/, '');
  const editor = options.editorUrl.replace(/\/+$/, '');
  const fetchImpl = options.fetchImpl ?? fetch;
  const timeoutMs = options.timeoutMs ?? CALL_TIMEOUT_MS;

  /**
   * One GET of the public API, its JSON; null for a 404 (a run that is gone); N8nError otherwise; a body
   * over `maxBytes` is not read further (RunTooLargeError).
   */
  async function get(path: string, query: URLSearchParams, maxBytes = MAX_RUN_BYTES): Promise<unknown> {
    let response: Response;
    try {
      response = await fetchImpl(`${base}/api/v1${path}?${query}`, {
        headers: { accept: 'application/json', 'x-n8n-api-key': options.apiKey },
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new N8nError(`n8n unreachable at ${base} (${whyUnanswered(error)})`, null);
    }
    let text: string;
    try {
      text = await cappedText(response, maxBytes);
    } catch (error) {
      if (error instanceof RunTooLargeError) throw error;
      throw new N8nError(`n8n's answer to GET /api/v1${path} was cut off (${whyUnanswered(error)})`, null);
    }
    const json = parseJson(text);
    if (response.status === 404) return null;
    if (!response.ok) {
      const parsed = ErrorBodySchema.safeParse(json);
      const message = parsed.success ? (parsed.data.message ?? null) : null;
      throw new N8nError(
        `n8n answered ${response.status} to GET /api/v1${path}${message ? `: ${message}` : ''}`,
        response.status,
        message,
      );
    }
    return json;
  }

  async function list(limit: number, status?: 'running' | 'waiting'): Promise<RunHead[]> {
    const query = new URLSearchParams({ limit: String(limit), includeData: 'false' });
    if (status !== undefined) query.set('status', status);
    const parsed = ListSchema.safeParse(await get('/executions', query));
    if (!parsed.success) throw new N8nError("n8n's list of executions is not what 2.41.1 gives", null);
    return parsed.data.data.flatMap((raw) => {
      const head = HeadSchema.safeParse(raw);
      return head.success ? [headOf(head.data, editor)] : [];
    });
  }

  return {
    async recent(limit: number): Promise<RunHead[]> {
      const n = Math.max(1, Math.min(MAX_LIMIT, Math.floor(limit)));
      // The newest n, and every run still running or waiting (up to MAX_LIMIT each) behind them.
      const [newest, running, waiting] = await Promise.all([
        list(n),
        list(MAX_LIMIT, 'running'),
        list(MAX_LIMIT, 'waiting'),
      ]);
      const byId = new Map<string, RunHead>();
      for (const head of [...running, ...waiting, ...newest]) if (!byId.has(head.id)) byId.set(head.id, head);
      const sorted = [...byId.values()].sort(newestFirst);
      const kept = new Set(sorted.slice(0, n));
      return sorted.filter((h) => kept.has(h) || h.status === 'running' || h.status === 'waiting');
    },

    async detail(id: string): Promise<RunDetail | null> {
      const json = await get(
        `/executions/${encodeURIComponent(id)}`,
        new URLSearchParams({ includeData: 'true' }),
      );
      if (json === null) return null;
      const execution = ExecutionSchema.safeParse(json);
      const extra = DetailExtraSchema.safeParse(json);
      if (!execution.success || !extra.success)
        throw new N8nError(`n8n's execution ${id} is not what 2.41.1 gives`, null);
      const view = viewOf(execution.data, editor);
      const e = execution.data;
      const webhook = view.nodes.find((n) => n.type === WEBHOOK_TYPE);
      const item = TriggerSchema.safeParse(webhook?.output[0]);
      return {
        head: headOf({ ...e, mode: extra.data.mode, stoppedAt: extra.data.stoppedAt }, editor),
        view,
        workflow: extra.data.workflowData?.name ?? '',
        trigger: webhook !== undefined && item.success ? item.data : null,
      };
    },
  };
}

function headOf(e: Head, editor: string): RunHead {
  const workflowId = e.workflowId == null ? null : String(e.workflowId);
  return {
    id: String(e.id),
    status: e.status,
    startedAt: e.startedAt ?? '',
    stoppedAt: e.stoppedAt ?? null,
    workflowId,
    mode: e.mode ?? '',
    url: workflowId === null ? null : `${editor}/workflow/${workflowId}/executions/${String(e.id)}`,
  };
}

/** Newest start first; n8n's ids grow, so they order runs started in the same millisecond. */
function newestFirst(a: RunHead, b: RunHead): number {
  const byStart = b.startedAt.localeCompare(a.startedAt);
  if (byStart !== 0) return byStart;
  const [x, y] = [Number(a.id), Number(b.id)];
  return Number.isFinite(x) && Number.isFinite(y) ? y - x : b.id.localeCompare(a.id);
}

/** The body as text, read no further than `maxBytes` (RunTooLargeError past it). */
async function cappedText(response: Response, maxBytes: number): Promise<string> {
  const said = Number(response.headers.get('content-length'));
  if (Number.isFinite(said) && said > maxBytes) {
    await response.body?.cancel();
    throw new RunTooLargeError(said, maxBytes);
  }
  if (response.body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new RunTooLargeError(null, maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? null : JSON.parse(text);
  } catch {
    return null;
  }
}

/** fetch says "fetch failed"; the reason is its cause (a refused connection, the subnet guard's refusal). */
function whyUnanswered(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message;
}
