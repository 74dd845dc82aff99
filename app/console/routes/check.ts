/** GET and POST /api/check: the Check control's run of the stage checker, one at a time. */
import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { checkScope } from '../check-scope.js';
import { CheckStageSchema } from '../check-view.js';
import type { ConsoleDeps } from './deps.js';
import { jsonBody } from './json-body.js';

// `only`: the stage on its own (the checker's --only); `all` has no such choice, as the checker says too.
const CheckBody = z
  .object({ stage: CheckStageSchema, only: z.boolean().default(false) })
  .refine((b) => !(b.only && b.stage === 'all'), {
    path: ['only'],
    message: 'on its own needs one stage, not all',
  });

/**
 * GET /api/check: the Check control's run; POST: start one (202), one at a time (409 while one runs).
 * A console without the checker answers 503 to both.
 */
export function checkRoutes({ checks }: Pick<ConsoleDeps, 'checks'>): Hono {
  return new Hono()
    .get('/', (c) => (checks ? c.json(checks.view) : unavailable(c)))
    .post('/', jsonBody(CheckBody), (c) => {
      const b = c.req.valid('json');
      if (!checks) return unavailable(c);
      const started = checks.start(b);
      if (started.ok) {
        const message = `check of ${checkScope(b.stage, b.only)} started; its lines appear under Check`;
        return c.json({ ok: true, message, run: started.view }, 202);
      }
      if (started.reason === 'unavailable') return unavailable(c, checks.view.unavailable);
      const run = checks.view;
      const message = `A check (${checkScope(run.stage ?? 'all', run.only)}, started ${run.started_at}) is running already; wait for it to finish.`;
      return c.json({ ok: false, error: { code: 'check_running', message }, run }, 409);
    });
}

function unavailable(c: Context, reason?: string | null) {
  const message = reason ?? 'This console cannot run the stage checker; use make check.';
  return c.json({ ok: false, error: { code: 'check_unavailable', message } }, 503);
}
