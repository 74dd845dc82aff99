import { type Context, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { streamSSE } from 'hono/streaming';
import { validator } from 'hono/validator';
import { z } from 'zod';
import { CaseModeSchema } from '../api/schemas/control.js';
import { type MockApiClient, parseBody } from '../harness/mock-api.js';
import { checkWords } from '../harness/stage-briefs.js';
import { webhookUrl } from '../harness/webhook-path.js';
import { N8nError, PublicApi } from '../n8n/client.js';
import { DEFAULT_WORKFLOWS_DIR, readReferences, SolutionRefused } from '../n8n/solution.js';
import {
  addStarter,
  STARTER_STAGES,
  StarterRefused,
  type Starters,
  starterName,
  startersOff,
} from '../n8n/starter.js';
import { refuse } from '../service-kit/browser-guard.js';
import { APPROVAL_THRESHOLD, RESPONSE_WEBHOOK_PATH } from '../workflow/constants.js';
import { alertPayload, LAB_ADDRESS, LAB_USER, TEST_ALERT_KINDS, TEST_ALERTS } from '../workflow/scenario.js';
import { CLIENT_CSS, clientScript } from './assets.js';
import type { CheckRunner } from './check-run.js';
import { checkScope } from './check-scope.js';
import { CheckStageSchema, type StagesView } from './check-view.js';
import type { StateFeed } from './feed.js';
import { renderFields } from './fields-page.js';
import { guard } from './guard.js';
import { type MockApiDocument, mockApiDocument } from './mock-api-document.js';
import { renderPage } from './page.js';
import { postDecision, resumeTarget } from './resume.js';
import type { Sessions } from './session.js';

export interface ConsoleDeps {
  feed: StateFeed;
  api: MockApiClient;
  /** The workflow platform as the console reaches it, and its public origin (what resume URLs carry). */
  n8nUrl: string;
  n8nPublicUrl: string;
  /** Host names answered besides 127.0.0.1, [::1] and localhost. */
  allowedHosts: readonly string[];
  /** The per-process token state-changing requests carry in `x-console-token`. */
  token: string;
  /** With the lab's secret set: the sessions a login opened; every request then needs one. */
  sessions?: Sessions | undefined;
  /** The alert webhook's path the test alerts go to (default RESPONSE_WEBHOOK_PATH). */
  alertWebhookPath?: string;
  /** The mock API as the workflow reaches it: the served OpenAPI document's `servers`. */
  workflowApiUrl?: string | undefined;
  /**
   * Stops the workflow platform's unfinished runs; Reset calls it before it clears the mock API, so no
   * run of the previous exercise writes into the next (the compose lab, with the lab's n8n API key).
   */
  stopRuns?: () => Promise<number>;
  /** The Check control: runs the stage checker as a child process, one run at a time. */
  checks?: CheckRunner;
  /** n8n's public-API key: the Add a starter control adds the starter with it. */
  n8nApiKey?: string | undefined;
  /** LAB_STARTERS: `off` leaves the Add a starter control off the page and refuses it (default on). */
  starters?: Starters;
  /** The folder of the reference exports a starter is cut from (default /lab/workflows). */
  workflowsDir?: string;
  /** Retry window for n8n's 409 "running already" (ms). */
  resumeRetryMs?: number;
  fetchImpl?: typeof fetch;
}

const ResetBody = z.object({ confirm: z.literal(true) });
const CaseModeBody = z.object({ mode: CaseModeSchema });
const ClockBody = z.object({ advance_minutes: z.number().int().min(1).max(1440) });
const ApproveBody = z.object({
  resume_url: z.string().max(2048),
  decision: z.enum(['approve', 'reject']),
  approver: z.string().trim().min(1).max(64),
});
const AlertBody = z.object({ kind: z.enum(TEST_ALERT_KINDS) });
// `only`: the stage on its own (the checker's --only); `all` has no such choice, as the checker says too.
const CheckBody = z
  .object({ stage: CheckStageSchema, only: z.boolean().default(false) })
  .refine((b) => !(b.only && b.stage === 'all'), {
    path: ['only'],
    message: 'on its own needs one stage, not all',
  });
// The stage is parsed by the starter's own code, which names the valid ones when it refuses one.
const StarterBody = z.object({ stage: z.string().max(100) });

/**
 * The route's JSON body, parsed by its schema before the handler runs: one that does not fit is a 400
 * naming its first issue. A body that is not JSON at all makes Hono's validator throw, answered in onError.
 */
const jsonBody = <T>(schema: z.ZodType<T>) =>
  validator('json', (value, c): T | Response => {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    return refuse(
      c,
      400,
      'bad_request',
      `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`,
    );
  });

export function createConsoleApp(deps: ConsoleDeps): Hono {
  const { feed, api } = deps;
  const app = new Hono();
  app.use(guard({ allowedHosts: deps.allowedHosts, token: deps.token, sessions: deps.sessions }));
  const alertUrl = webhookUrl(deps.n8nUrl, deps.alertWebhookPath ?? RESPONSE_WEBHOOK_PATH);
  let document: Promise<MockApiDocument> | undefined;
  const openApi = () => {
    document ??= mockApiDocument(deps.workflowApiUrl);
    return document;
  };

  /** Forwards one control call to the mock API and answers what it said; the feed then polls at once. */
  async function forward(c: Context, path: string, payload: unknown) {
    try {
      const res = await api.request('POST', path, payload);
      await feed.refresh();
      return c.json({ ok: res.status < 300, status: res.status, answer: res.body }, 200);
    } catch (err) {
      return c.json(
        { ok: false, status: 0, message: `mock API unreachable: ${(err as Error).message}` },
        502,
      );
    }
  }

  const starters = deps.starters ?? 'on';
  const stagesView: StagesView = {
    briefs: checkWords(APPROVAL_THRESHOLD).briefs,
    starter: {
      shown: starters === 'on',
      unavailable:
        deps.n8nApiKey === undefined
          ? 'Adding a starter from the console needs n8n’s API key (N8N_API_KEY); ask your trainer (make starter).'
          : null,
      stages: STARTER_STAGES.map((stage) => ({ stage, name: starterName(stage) })),
    },
  };

  app.get('/', (c) => c.html(renderPage(deps.token, { starters: stagesView.starter.shown })));
  app.get('/console.js', async (c) =>
    c.body(await clientScript(), 200, { 'content-type': 'text/javascript; charset=utf-8' }),
  );
  app.get('/console.css', (c) => c.body(CLIENT_CSS, 200, { 'content-type': 'text/css; charset=utf-8' }));
  app.get('/openapi.json', async (c) => c.json(await openApi()));
  app.get('/fields', async (c) => c.html(renderFields(await openApi())));
  app.get('/api/session', (c) => c.json({ token: deps.token }));
  app.get('/api/state', async (c) => {
    // Nobody listening: the feed is not polling, so this read polls first.
    if (!feed.polling) await feed.refresh();
    return c.json(feed.view);
  });
  app.get('/api/events', (c) =>
    streamSSE(c, async (stream) => {
      let sent = -1;
      const send = async () => {
        const view = feed.view;
        if (view.version === sent) return;
        sent = view.version;
        await stream.writeSSE({ event: 'state', id: String(view.version), data: JSON.stringify(view) });
      };
      const unsubscribe = feed.subscribe(() => void send());
      // The Check control's run (its state) and each line the checker prints, as they come.
      const unfollow = deps.checks?.subscribe((event) => {
        const data = JSON.stringify(event.kind === 'run' ? event.view : { n: event.n, text: event.text });
        void stream.writeSSE({ event: `check-${event.kind}`, data });
      });
      const heartbeat = setInterval(() => void stream.write(': keep-alive\n\n'), 15_000);
      const end = () => {
        unsubscribe();
        unfollow?.();
        clearInterval(heartbeat);
      };
      stream.onAbort(end);
      await send();
      if (deps.checks) await stream.writeSSE({ event: 'check-run', data: JSON.stringify(deps.checks.view) });
      while (!stream.aborted && !stream.closed) await stream.sleep(60_000);
      end();
    }),
  );

  app.post('/api/reset', jsonBody(ResetBody), async (c) => {
    if (deps.stopRuns) {
      try {
        await deps.stopRuns();
      } catch (err) {
        const message = `could not stop the unfinished workflow runs (${(err as Error).message}); nothing was reset`;
        return c.json({ ok: false, status: 0, message }, 502);
      }
    }
    return forward(c, '/reset', {});
  });
  app.post('/api/case-mode', jsonBody(CaseModeBody), (c) =>
    forward(c, '/control/case-mode', c.req.valid('json')),
  );
  app.post('/api/clock', jsonBody(ClockBody), (c) => forward(c, '/control/clock', c.req.valid('json')));

  app.post('/api/approve', jsonBody(ApproveBody), async (c) => {
    const b = c.req.valid('json');
    const target = resumeTarget(b.resume_url, deps.n8nPublicUrl, deps.n8nUrl);
    if (!target.ok) return refuse(c, 400, 'not_a_resume_url', `Refused: ${target.reason}.`);
    try {
      const out = await postDecision(
        target.url,
        { decision: b.decision, approver: b.approver },
        { retryForMs: deps.resumeRetryMs ?? 5000, ...(deps.fetchImpl ? { fetchImpl: deps.fetchImpl } : {}) },
      );
      feed.recordDecision(b.resume_url, {
        decision: b.decision,
        approver: b.approver,
        status: out.status,
        attempts: out.attempts,
        at: new Date().toISOString(),
      });
      await feed.refresh();
      return c.json({ ok: out.status < 300, ...out, message: describeResume(out.status, out.attempts) });
    } catch (err) {
      return c.json(
        { ok: false, status: 0, message: `workflow platform unreachable: ${(err as Error).message}` },
        502,
      );
    }
  });

  app.post('/api/alert', jsonBody(AlertBody), async (c) => {
    const b = c.req.valid('json');
    const eventId = `evt-console-${Date.now().toString(36)}`;
    const payload = alertPayload({ eventId, sourceIp: LAB_ADDRESS, user: LAB_USER }, TEST_ALERTS[b.kind]);
    try {
      const res = await (deps.fetchImpl ?? fetch)(alertUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload),
        redirect: 'manual',
        signal: AbortSignal.timeout(5000),
      });
      const answer = parseBody((await res.text()).slice(0, 2000));
      const path = new URL(alertUrl).pathname;
      const message =
        res.status === 404
          ? `Nothing listens on POST ${path}: publish your workflow, its Webhook node set to POST with the path ${path.replace(/^\/webhook\//, '')}.`
          : `Test alert sent as ${eventId} to POST ${path}; the workflow answered ${res.status}.`;
      return c.json({ ok: res.ok, status: res.status, event_id: eventId, url: alertUrl, message, answer });
    } catch (err) {
      return c.json(
        { ok: false, status: 0, message: `workflow platform unreachable: ${(err as Error).message}` },
        502,
      );
    }
  });

  app.get('/api/check', (c) => (deps.checks ? c.json(deps.checks.view) : unavailable(c)));
  app.post('/api/check', jsonBody(CheckBody), (c) => {
    const b = c.req.valid('json');
    if (!deps.checks) return unavailable(c);
    const started = deps.checks.start(b);
    if (started.ok) {
      const message = `check of ${checkScope(b.stage, b.only)} started; its lines appear under Check`;
      return c.json({ ok: true, message, run: started.view }, 202);
    }
    if (started.reason === 'unavailable') return unavailable(c, deps.checks.view.unavailable);
    const run = deps.checks.view;
    const message = `A check (${checkScope(run.stage ?? 'all', run.only)}, started ${run.started_at}) is running already; wait for it to finish.`;
    return c.json({ ok: false, error: { code: 'check_running', message }, run }, 409);
  });

  app.get('/api/stages', (c) => c.json(stagesView));
  const key = deps.n8nApiKey;
  if (starters === 'off' || key === undefined) {
    // Refused before the body is read: a lab without starters, or without n8n's key, says so whatever was asked.
    app.post('/api/starter', (c) => {
      if (starters === 'off') {
        const off = startersOff();
        return refuse(c, 403, off.code, off.message);
      }
      const message = stagesView.starter.unavailable ?? 'unavailable';
      return c.json({ ok: false, error: { code: 'starter_unavailable', message } }, 503);
    });
  } else {
    app.post('/api/starter', jsonBody(StarterBody), async (c) => {
      const b = c.req.valid('json');
      const connect = () =>
        new PublicApi({ url: deps.n8nUrl, ...(deps.fetchImpl ? { fetchImpl: deps.fetchImpl } : {}) }, key);
      try {
        const references = () => readReferences([], deps.workflowsDir ?? DEFAULT_WORKFLOWS_DIR);
        const lines = await addStarter(connect, b.stage, starters, references);
        return c.json({ ok: true, lines, message: lines.join(' ') });
      } catch (err) {
        // A refusal (400, 409), no reference exports to cut it from (503), or n8n's refusal (502): one line.
        if (err instanceof StarterRefused) {
          const status = err.code === 'starter_published' ? 409 : 400;
          return c.json({ ok: false, error: { code: err.code, message: err.message } }, status);
        }
        if (err instanceof SolutionRefused)
          return c.json({ ok: false, error: { code: 'starter_unavailable', message: err.message } }, 503);
        if (err instanceof N8nError)
          return c.json({ ok: false, error: { code: 'n8n_failed', message: err.message } }, 502);
        throw err;
      }
    });
  }

  app.notFound((c) => refuse(c, 404, 'not_found', 'No such page.'));
  app.onError((err, c) => {
    // Hono's JSON validator throws its 400 when a body does not parse: answered as the console's refusal.
    if (err instanceof HTTPException && err.status === 400) {
      return refuse(c, 400, 'bad_json', 'The body is not JSON.');
    }
    // Anything else as Hono's own handler answers it.
    if (err instanceof HTTPException) {
      const res = err.getResponse();
      return c.newResponse(res.body, res);
    }
    console.error(err);
    return c.text('Internal Server Error', 500);
  });
  return app;
}

function unavailable(c: Context, reason?: string | null) {
  const message = reason ?? 'This console cannot run the stage checker; use make check.';
  return c.json({ ok: false, error: { code: 'check_unavailable', message } }, 503);
}

function describeResume(status: number, attempts: number): string {
  const tries =
    attempts > 1 ? ` after ${attempts} tries (n8n said "running already" until its Wait node waited)` : '';
  if (status < 300) return `The workflow accepted the decision${tries}.`;
  if (status === 409) return `The workflow still answers 409 "running already"${tries}; try again.`;
  if (status === 401) return 'The workflow refused the resume URL (bad or missing signature).';
  if (status === 404) return 'Nothing waits on this URL any more (answered, timed out, or the run ended).';
  return `The workflow answered ${status}.`;
}
