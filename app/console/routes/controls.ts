/** POST /api/reset, /api/case-mode, /api/clock: the mock API's controls, passed on to it. */
import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { CaseModeSchema } from '../../api/schemas/control.js';
import type { ConsoleDeps } from './deps.js';
import { jsonBody } from './json-body.js';

const ResetBody = z.object({ confirm: z.literal(true) });
const CaseModeBody = z.object({ mode: CaseModeSchema });
const ClockBody = z.object({ advance_minutes: z.number().int().min(1).max(1440) });

/**
 * POST /api/reset, /api/case-mode, /api/clock: the mock API's controls, passed on to it. Reset first stops
 * the workflow's unfinished runs (when the lab can), and resets nothing if it could not.
 */
export function controlRoutes({ feed, api, stopRuns }: Pick<ConsoleDeps, 'feed' | 'api' | 'stopRuns'>): Hono {
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

  return new Hono()
    .post('/reset', jsonBody(ResetBody), async (c) => {
      if (stopRuns) {
        try {
          await stopRuns();
        } catch (err) {
          const message = `could not stop the unfinished workflow runs (${(err as Error).message}); nothing was reset`;
          return c.json({ ok: false, status: 0, message }, 502);
        }
      }
      return forward(c, '/reset', {});
    })
    .post('/case-mode', jsonBody(CaseModeBody), (c) => forward(c, '/control/case-mode', c.req.valid('json')))
    .post('/clock', jsonBody(ClockBody), (c) => forward(c, '/control/clock', c.req.valid('json')));
}
