/** GET /api/runs: the tutor's explanations of the trainee's runs, newest first. */
import { Hono } from 'hono';
import type { ConsoleDeps } from './deps.js';

/**
 * GET /api/runs: the tutor's explanations of the trainee's runs, newest first, and what keeps it from
 * explaining (app/tutor/tutor-view.ts). A console without n8n's API key has no tutor: 503 with the reason.
 */
export function runRoutes({ tutor }: Pick<ConsoleDeps, 'tutor'>): Hono {
  return new Hono().get('/', async (c) => {
    if (!tutor) {
      const message = 'This console has no n8n API key (N8N_API_KEY): it cannot read your runs.';
      return c.json({ ok: false, error: { code: 'runs_unavailable', message } }, 503);
    }
    // Nobody listening: the tutor is not polling, so this read polls first.
    if (!tutor.polling) await tutor.refresh();
    return c.json(tutor.view);
  });
}
