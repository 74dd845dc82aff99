import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import { APPROVER, alertPayload, LAB_ADDRESS, LAB_USER } from '../acceptance/runner.js';
import { CaseModeSchema } from '../schemas/control.js';
import { CLIENT_CSS, CLIENT_JS } from './assets.js';
import type { StateFeed } from './feed.js';
import type { MockApi } from './mock-api.js';
import { renderPage } from './page.js';
import { postDecision, resumeTarget } from './resume.js';

export interface ConsoleDeps {
  feed: StateFeed;
  api: MockApi;
  /** The workflow platform as the console reaches it, and its public origin (what resume URLs carry). */
  n8nUrl: string;
  n8nPublicUrl: string;
  /** Host names answered besides 127.0.0.1, [::1] and localhost. */
  allowedHosts: readonly string[];
  /** The per-process token state-changing requests carry in `x-console-token`. */
  token: string;
  /**
   * Stops the workflow platform's unfinished runs; Reset calls it before it clears the mock API, so no
   * run of the previous exercise writes into the next (the compose lab, with the lab's n8n API key).
   */
  stopRuns?: () => Promise<number>;
  /** Retry window for n8n's 409 "running already" (ms). */
  resumeRetryMs?: number;
  fetchImpl?: typeof fetch;
}

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

const refuse = (c: Context, status: 400 | 403 | 404 | 405 | 415 | 421, code: string, message: string) =>
  c.json({ error: { code, message } }, status);

/** The Host's name part, lower case, without a port or a trailing dot; IPv6 keeps its brackets. */
function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.lastIndexOf(':');
  return (colon === -1 ? h : h.slice(0, colon)).replace(/\.$/, '');
}

/**
 * A browser app on loopback is what DNS rebinding and cross-site requests aim at, so: a Host the console
 * does not serve is refused (rebinding sends the attacker's name); a state-changing request must be a
 * same-origin JSON POST (Origin, when sent, equal to the console's own; Sec-Fetch-Site not cross-site)
 * carrying the page's token; no CORS at all (a preflight gets 405); a strict CSP on every answer.
 */
function guard(deps: ConsoleDeps): MiddlewareHandler {
  const names = new Set(['127.0.0.1', '[::1]', 'localhost', ...deps.allowedHosts]);
  return async (c, next) => {
    await guarded(c, next);
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(name, value);
  };
  async function guarded(c: Context, next: () => Promise<void>): Promise<void> {
    const host = c.req.header('host');
    if (host === undefined || !names.has(hostName(host))) {
      c.res = refuse(c, 421, 'host_not_allowed', 'The console does not answer for this Host.');
      return;
    }
    const site = c.req.header('sec-fetch-site');
    // A link from elsewhere (the n8n editor, the docs) may open the page: a top-level navigation, whose
    // answer only the user sees (frame-ancestors 'none' keeps it out of frames).
    const navigation = c.req.method === 'GET' && c.req.header('sec-fetch-mode') === 'navigate';
    if (site !== undefined && site !== 'same-origin' && site !== 'none' && !navigation) {
      c.res = refuse(c, 403, 'cross_site', 'Requests from other sites are refused.');
      return;
    }
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== `http://${host}`) {
      c.res = refuse(c, 403, 'origin_not_allowed', 'Requests from another origin are refused.');
      return;
    }
    const method = c.req.method;
    if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') {
      c.res = refuse(c, 405, 'method_not_allowed', 'Only GET and POST; no CORS.');
      c.res.headers.set('allow', 'GET, HEAD, POST');
      return;
    }
    if (method === 'POST') {
      if (!/^application\/json\s*(;|$)/i.test(c.req.header('content-type') ?? '')) {
        c.res = refuse(c, 415, 'json_only', 'Send a JSON body (content-type: application/json).');
        return;
      }
      if (c.req.header('x-console-token') !== deps.token) {
        c.res = refuse(c, 403, 'token_missing', 'Missing or wrong x-console-token (GET /api/session).');
        return;
      }
    }
    await next();
  }
}

const ResetBody = z.object({ confirm: z.literal(true) });
const CaseModeBody = z.object({ mode: CaseModeSchema });
const ClockBody = z.object({ advance_minutes: z.number().int().min(1).max(1440) });
const ApproveBody = z.object({
  resume_url: z.string().max(2048),
  decision: z.enum(['approve', 'reject']),
  approver: z.string().trim().min(1).max(64),
});
const ALERTS = {
  positive: { confidence: 92 },
  low_confidence: { confidence: 12 },
  invalid: { confidence: 92, omitSourceIp: true },
} as const;
const AlertBody = z.object({ kind: z.enum(['positive', 'low_confidence', 'invalid']) });

export function createConsoleApp(deps: ConsoleDeps): Hono {
  const { feed, api } = deps;
  const app = new Hono();
  app.use(guard(deps));

  async function body<T>(c: Context, schema: z.ZodType<T>): Promise<T | Response> {
    let json: unknown;
    try {
      json = await c.req.json();
    } catch {
      return refuse(c, 400, 'bad_json', 'The body is not JSON.');
    }
    const parsed = schema.safeParse(json);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    return refuse(
      c,
      400,
      'bad_request',
      `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`,
    );
  }

  /** Forwards one control call to the mock API and answers what it said; the feed then polls at once. */
  async function forward(c: Context, path: string, payload: unknown) {
    try {
      const res = await api.call('POST', path, payload);
      await feed.refresh();
      return c.json({ ok: res.status < 300, status: res.status, answer: safeJson(res.body) }, 200);
    } catch (err) {
      return c.json(
        { ok: false, status: 0, message: `mock API unreachable: ${(err as Error).message}` },
        502,
      );
    }
  }

  app.get('/', (c) => c.html(renderPage(deps.token)));
  app.get('/console.js', (c) => c.body(CLIENT_JS, 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  app.get('/console.css', (c) => c.body(CLIENT_CSS, 200, { 'content-type': 'text/css; charset=utf-8' }));
  app.get('/api/session', (c) => c.json({ token: deps.token }));
  app.get('/api/state', (c) => c.json(feed.view));
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
      const heartbeat = setInterval(() => void stream.write(': keep-alive\n\n'), 15_000);
      stream.onAbort(() => {
        unsubscribe();
        clearInterval(heartbeat);
      });
      await send();
      while (!stream.aborted && !stream.closed) await stream.sleep(60_000);
      unsubscribe();
      clearInterval(heartbeat);
    }),
  );

  app.post('/api/reset', async (c) => {
    const b = await body(c, ResetBody);
    if (b instanceof Response) return b;
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
  app.post('/api/case-mode', async (c) => {
    const b = await body(c, CaseModeBody);
    return b instanceof Response ? b : forward(c, '/control/case-mode', b);
  });
  app.post('/api/clock', async (c) => {
    const b = await body(c, ClockBody);
    return b instanceof Response ? b : forward(c, '/control/clock', b);
  });

  app.post('/api/approve', async (c) => {
    const b = await body(c, ApproveBody);
    if (b instanceof Response) return b;
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

  app.post('/api/alert', async (c) => {
    const b = await body(c, AlertBody);
    if (b instanceof Response) return b;
    const eventId = `evt-console-${Date.now().toString(36)}`;
    const payload = alertPayload(
      { eventId, sourceIp: LAB_ADDRESS, user: LAB_USER, approver: APPROVER },
      ALERTS[b.kind],
    );
    try {
      const res = await (deps.fetchImpl ?? fetch)(`${deps.n8nUrl}/webhook/suspicious-login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload),
        redirect: 'manual',
        signal: AbortSignal.timeout(5000),
      });
      const answer = safeJson((await res.text()).slice(0, 2000));
      return c.json({ ok: res.ok, status: res.status, event_id: eventId, answer });
    } catch (err) {
      return c.json(
        { ok: false, status: 0, message: `workflow platform unreachable: ${(err as Error).message}` },
        502,
      );
    }
  });

  app.notFound((c) => refuse(c, 404, 'not_found', 'No such page.'));
  return app;
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

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
