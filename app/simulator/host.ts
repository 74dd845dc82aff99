/**
 * The simulator behind n8n's own trigger URLs, in process: each workflow's Webhook answers POST
 * /webhook/<path> at once (n8n's "Respond immediately") and its run goes on in the background; a Wait
 * node is resumed by a POST to the run's signed /webhook-waiting/<id> URL. Its runs are read as the
 * checker reads n8n's executions (a RunSource), so the acceptance runner and the checker drive it
 * through the code paths they drive n8n with. Requests go to the mock API and nowhere else.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { type BusySpan, STIMULUS_HEADER } from '../runs/run.js';
import type { N8nExport } from '../workflow/export.js';
import { type HttpAnswer, type HttpCall, type NodeStep, type Resume, runWorkflow } from './engine.js';

export interface SimulatorHostOptions {
  /** The mock API's base URL: the runs' `$env.MOCK_API_URL`, and the only place they may call. */
  mockApiUrl: string;
  workflows: readonly N8nExport[];
  /** More of the runs' `$env` (APPROVAL_TIMEOUT_SECONDS). */
  env?: Readonly<Record<string, string>>;
  /** One line per node and per finished run; the runner's --verbose prints them. */
  log?: (line: string) => void;
}

/** n8n's words for a run's status. */
export type RunStatus = 'running' | 'waiting' | 'success' | 'error' | 'canceled';

export interface SimulatedRun {
  id: string;
  workflow: string;
  /** The webhook path that started it. */
  path: string;
  /** The stimulus's id (its header, app/runs/run.ts), else the payload's event_id; null: neither. */
  eventId: string | null;
  startedAt: Date;
  finishedAt: Date | null;
  status: RunStatus;
  steps: NodeStep[];
  /** The Wait node the run waits at (n8n's last node of a waiting run); null while it does not wait. */
  waitingAt: { id: string; name: string } | null;
  error: string | null;
  /** When it was busy (ms; as n8n's node times show it): from its start until it waits, from its resume on. */
  busy: BusySpan[];
}

export interface SimulatorHost {
  /** e.g. http://127.0.0.1:40123; the triggers are <url>/webhook/<path> as on n8n. */
  readonly url: string;
  readonly runs: readonly SimulatedRun[];
  /** Ends the runs of `path` (every path: undefined) started since `since`, and waits until they stopped. */
  stopRuns(path?: string, since?: Date): Promise<void>;
  close(): Promise<void>;
}

interface Live {
  run: SimulatedRun;
  controller: AbortController;
  done: Promise<void>;
  resume?: (resume: Resume) => void;
}

const cancelled = () => new Error('the run was stopped');

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(cancelled());
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelled());
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export async function startSimulatorHost(options: SimulatorHostOptions): Promise<SimulatorHost> {
  const log = options.log ?? (() => {});
  const api = new URL(options.mockApiUrl);
  const apiBase = options.mockApiUrl.replace(/\/+$/, '');
  const env = { MOCK_API_URL: apiBase, ...options.env };
  const byPath = new Map<string, N8nExport>();
  for (const workflow of options.workflows) {
    for (const node of workflow.nodes.filter((n) => n.type === 'n8n-nodes-base.webhook'))
      byPath.set(String(node.parameters.path), workflow);
  }
  // Per host, like n8n's instance secret: a resume URL is only good with the signature made from it.
  const secret = randomBytes(32);
  const sign = (id: string) => createHmac('sha256', secret).update(id).digest('hex');
  const runs: SimulatedRun[] = [];
  const live = new Map<string, Live>();
  let baseUrl = '';

  async function request(call: HttpCall, signal: AbortSignal): Promise<HttpAnswer> {
    const target = new URL(call.url);
    if (target.origin !== api.origin) throw new Error(`${call.url}: the simulator calls the mock API only`);
    const init: RequestInit = {
      method: call.method,
      signal: AbortSignal.any([signal, AbortSignal.timeout(call.timeoutMs)]),
    };
    if (call.body !== undefined) {
      init.body = JSON.stringify(call.body);
      init.headers = { 'content-type': 'application/json' };
    }
    const answer = await fetch(target, init);
    const text = await answer.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    return { status: answer.status, body };
  }

  function start(workflow: N8nExport, path: string, headers: Record<string, string>, body: unknown) {
    const id = String(runs.length + 1);
    const run: SimulatedRun = {
      id,
      workflow: workflow.name,
      path,
      eventId: headers[STIMULUS_HEADER] ?? eventIdOf(body),
      startedAt: new Date(),
      finishedAt: null,
      status: 'running',
      steps: [],
      waitingAt: null,
      error: null,
      busy: [[Date.now(), Date.now()]],
    };
    runs.push(run);
    /** The run busy until now (its current span goes on). */
    const busyNow = () => {
      const span = run.busy.at(-1);
      if (span !== undefined) span[1] = Date.now();
    };
    const controller = new AbortController();
    const entry: Live = { run, controller, done: Promise.resolve() };
    const say = (line: string) => log(`[${workflow.name} ${id}] ${line}`);
    entry.done = runWorkflow(
      workflow,
      { headers, body },
      {
        env,
        resumeUrl: `${baseUrl}/webhook-waiting/${id}?signature=${sign(id)}`,
        now: () => Date.now(),
        request: (call) => request(call, controller.signal),
        sleep: (seconds) => sleep(seconds * 1000, controller.signal),
        waitForResume: (limit, node) =>
          new Promise<Resume>((resolve, reject) => {
            busyNow();
            run.status = 'waiting';
            run.waitingAt = node;
            const timer = limit === null ? undefined : setTimeout(() => finish('timeout'), limit * 1000);
            const onAbort = () => {
              clearTimeout(timer);
              reject(cancelled());
            };
            function finish(resume: Resume) {
              clearTimeout(timer);
              controller.signal.removeEventListener('abort', onAbort);
              entry.resume = undefined;
              run.status = 'running';
              run.waitingAt = null;
              run.busy.push([Date.now(), Date.now()]);
              resolve(resume);
            }
            entry.resume = finish;
            controller.signal.addEventListener('abort', onAbort, { once: true });
          }),
        onNode: (step) => {
          busyNow();
          run.steps.push(step);
          say(`${step.name}${step.error === null ? '' : `: ${step.error}`}`);
        },
      },
    ).then((result) => {
      if (run.status !== 'waiting') busyNow();
      run.status = controller.signal.aborted ? 'canceled' : result.status;
      run.error = result.error;
      run.finishedAt = new Date();
      live.delete(id);
      say(`${run.status}${run.error === null ? '' : `: ${run.error}`}`);
    });
    live.set(id, entry);
  }

  const app = new Hono();
  app.post('/webhook/:path{.+}', async (c) => {
    const path = c.req.param('path');
    const workflow = byPath.get(path);
    if (workflow === undefined)
      return c.json({ code: 404, message: `The requested webhook "POST ${path}" is not registered.` }, 404);
    start(workflow, path, c.req.header(), await readJson(c.req.raw));
    return c.json({ message: 'Workflow was started' });
  });
  app.post('/webhook-waiting/:id', async (c) => {
    const id = c.req.param('id');
    if (!signatureMatches(c.req.query('signature'), sign(id)))
      return c.json({ message: 'Invalid or missing signature' }, 401);
    const resume = live.get(id)?.resume;
    if (resume === undefined) return c.json({ message: 'No execution is waiting on this URL' }, 409);
    resume({ headers: c.req.header(), body: await readJson(c.req.raw) });
    return c.json({ message: 'Resumed' });
  });
  app.notFound((c) => c.json({ message: 'Not found' }, 404));

  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(started));
  });
  const address: AddressInfo | string | null = server.address();
  if (address === null || typeof address === 'string') throw new Error('simulator host: no TCP address');
  baseUrl = `http://127.0.0.1:${address.port}`;

  async function stopRuns(path?: string, since?: Date): Promise<void> {
    const chosen = [...live.values()].filter(
      (l) => (path === undefined || l.run.path === path) && (since === undefined || l.run.startedAt >= since),
    );
    for (const l of chosen) l.controller.abort();
    await Promise.all(chosen.map((l) => l.done));
  }

  return {
    url: baseUrl,
    runs,
    stopRuns,
    async close() {
      await stopRuns();
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
