/**
 * A tiny in-process stand-in for n8n that runs the reference workflow behind n8n's own trigger URLs, so
 * the acceptance runner drives both targets through the same code path: webhook POST, approval request
 * in the mock API's notifications, POST to its signed resume URL.
 */

import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { STIMULUS_HEADER } from '../driver/run-watch.js';
import { mockApiClient } from '../mock-api-client/client.js';
import { RESPONSE_WORKFLOW, ROLLBACK_WORKFLOW } from '../workflow/constants.js';
import {
  type ApprovalOutcome,
  type ApprovalWait,
  DEFAULT_SETTINGS,
  REFERENCE_NODES,
  type ResponseNodes,
  ROLLBACK_NODES,
  type RollbackNodes,
  type RunContext,
  runRollback,
  runSuspiciousLogin,
  StopRun,
  type WorkflowSettings,
} from './reference-workflow.js';

export interface WorkflowHostOptions {
  /** The mock API's base URL (n8n: the MOCK_API_URL setting). */
  mockApiUrl: string;
  settings?: Partial<WorkflowSettings>;
  /** Node functions that replace the reference's (a variant of the workflow; see reference-workflow.ts). */
  variant?: WorkflowVariant;
  /** One line per node step and per finished run; the runner's --verbose prints them. */
  log?: (line: string) => void;
}

export interface WorkflowVariant {
  response?: Partial<ResponseNodes>;
  rollback?: Partial<RollbackNodes>;
}

export interface RunRecord {
  id: string;
  workflow: string;
  /** The stimulus's id (its header, app/driver/run-watch.ts), else the payload's event_id; null: neither. */
  eventId: string | null;
  startedAt: string;
  finishedAt: string | null;
  /** success; stopped (Stop and Error after recording why); error; cancelled (host closing). */
  status: 'running' | 'success' | 'stopped' | 'error' | 'cancelled';
  trace: string[];
  error: string | null;
  /** The run waits for an approval (n8n's status would say waiting). */
  waiting: boolean;
}

export interface WorkflowHost {
  /** e.g. http://127.0.0.1:40123; the triggers are <url>/webhook/... as on n8n. */
  readonly url: string;
  readonly runs: readonly RunRecord[];
  /** Ends every run in flight (pending approvals included) and waits until they have stopped. */
  cancelRuns(): Promise<void>;
  close(): Promise<void>;
}

interface PendingWait {
  resume(body: unknown): void;
  cancel(): void;
}

export async function startWorkflowHost(options: WorkflowHostOptions): Promise<WorkflowHost> {
  const settings: WorkflowSettings = { ...DEFAULT_SETTINGS, ...options.settings };
  const log = options.log ?? (() => {});
  const responseNodes: ResponseNodes = { ...REFERENCE_NODES, ...options.variant?.response };
  const rollbackNodes: RollbackNodes = { ...ROLLBACK_NODES, ...options.variant?.rollback };
  // Per host, like n8n's instance secret: a resume URL is only good with the signature made from it.
  const secret = randomBytes(32);
  const sign = (waitId: string) => createHmac('sha256', secret).update(waitId).digest('hex');
  const waits = new Map<string, PendingWait>();
  const inFlight = new Map<string, { controller: AbortController; done: Promise<void> }>();
  const runs: RunRecord[] = [];
  let baseUrl = '';

  function openApprovalWait(timeoutMs: number): ApprovalWait {
    const id = randomUUID();
    let pending: PendingWait | undefined;
    const outcome = new Promise<ApprovalOutcome>((resolve) => {
      const finish = (result: ApprovalOutcome) => {
        clearTimeout(timer);
        waits.delete(id);
        resolve(result);
      };
      const timer = setTimeout(() => finish({ kind: 'timed_out' }), timeoutMs);
      pending = {
        resume: (body) => finish({ kind: 'resumed', body }),
        cancel: () => finish({ kind: 'cancelled' }),
      };
      waits.set(id, pending);
    });
    return {
      resumeUrl: `${baseUrl}/webhook-waiting/${id}?signature=${sign(id)}`,
      outcome,
      cancel: () => pending?.cancel(),
    };
  }

  function startRun(
    workflow: string,
    stimulus: string | undefined,
    payload: unknown,
    body: (payload: unknown, ctx: RunContext) => Promise<void>,
  ) {
    const run: RunRecord = {
      id: randomUUID(),
      workflow,
      eventId: stimulus ?? eventIdOf(payload),
      startedAt: new Date().toISOString(),
      finishedAt: null,
      status: 'running',
      trace: [],
      error: null,
      waiting: false,
    };
    runs.push(run);
    const controller = new AbortController();
    const api = mockApiClient({ kind: 'http', url: options.mockApiUrl }, { signal: controller.signal });
    const ctx: RunContext = {
      api,
      openApprovalWait: (timeoutMs) => {
        const wait = openApprovalWait(timeoutMs);
        controller.signal.addEventListener('abort', () => wait.cancel(), { once: true });
        run.waiting = true;
        void wait.outcome.then(() => {
          run.waiting = false;
        });
        return wait;
      },
      settings,
      signal: controller.signal,
      triggeredAt: new Date(),
      now: () => new Date(),
      trace: (node, message) => {
        run.trace.push(`${node}: ${message}`);
        log(`[${workflow} ${run.id.slice(0, 8)}] ${node}: ${message}`);
      },
    };
    const done = body(payload, ctx).then(
      () => {
        run.status = 'success';
      },
      (error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        run.status = controller.signal.aborted ? 'cancelled' : error instanceof StopRun ? 'stopped' : 'error';
        run.error = message;
      },
    );
    const settled = done.then(() => {
      api.close();
      run.finishedAt = new Date().toISOString();
      inFlight.delete(run.id);
      log(`[${workflow} ${run.id.slice(0, 8)}] ${run.status}${run.error ? `: ${run.error}` : ''}`);
    });
    inFlight.set(run.id, { controller, done: settled });
  }

  const app = new Hono();
  // n8n's onReceived webhook: 200 at once, the run goes on in the background.
  app.post('/webhook/suspicious-login', async (c) => {
    startRun(RESPONSE_WORKFLOW, c.req.header(STIMULUS_HEADER), await readJson(c.req.raw), (payload, ctx) =>
      runSuspiciousLogin(payload, ctx, responseNodes),
    );
    return c.json({ message: 'Workflow was started' });
  });
  app.post('/webhook/suspicious-login-rollback', async (c) => {
    startRun(ROLLBACK_WORKFLOW, c.req.header(STIMULUS_HEADER), await readJson(c.req.raw), (payload, ctx) =>
      runRollback(payload, ctx, rollbackNodes),
    );
    return c.json({ message: 'Workflow was started' });
  });
  app.post('/webhook-waiting/:id', async (c) => {
    const id = c.req.param('id');
    if (!signatureMatches(c.req.query('signature'), sign(id))) {
      return c.json({ message: 'Invalid or missing signature' }, 401);
    }
    const wait = waits.get(id);
    if (wait === undefined) return c.json({ message: 'No execution is waiting on this URL' }, 404);
    wait.resume(await readJson(c.req.raw));
    return c.json({ message: 'Resumed' });
  });
  app.notFound((c) => c.json({ message: 'Not found' }, 404));

  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(started));
  });
  const address: AddressInfo | string | null = server.address();
  if (address === null || typeof address === 'string') throw new Error('workflow host: no TCP address');
  baseUrl = `http://127.0.0.1:${address.port}`;

  async function cancelRuns(): Promise<void> {
    const pending = [...inFlight.values()];
    for (const run of pending) run.controller.abort(new Error('the workflow host cancelled the run'));
    await Promise.all(pending.map((run) => run.done));
  }

  return {
    url: baseUrl,
    runs,
    cancelRuns,
    async close() {
      await cancelRuns();
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets of the runner's fetch would otherwise hold close() open.
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
    },
  };
}

function eventIdOf(payload: unknown): string | null {
  if (typeof payload !== 'object' || payload === null || !('event_id' in payload)) return null;
  return typeof payload.event_id === 'string' ? payload.event_id : null;
}

/** The body as JSON, or null when it is empty or not JSON: the workflow's Validate judges it. */
async function readJson(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function signatureMatches(given: string | undefined, expected: string): boolean {
  if (given === undefined || !/^[0-9a-f]+$/i.test(given)) return false;
  const a = Buffer.from(given.toLowerCase(), 'hex');
  const b = Buffer.from(expected, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
