/** POST /api/starter: the guide's workflow up to a stage, added unpublished to n8n. */
import { Hono } from 'hono';
import { z } from 'zod';
import { N8nError, PublicApi } from '../../n8n/client.js';
import { addStarter, StarterRefused, startersOff } from '../../n8n/starter.js';
import { refuse } from '../../service-kit/browser-guard.js';
import type { ConsoleDeps } from './deps.js';
import { jsonBody } from './json-body.js';

// The stage is parsed by the starter's own code, which names the valid ones when it refuses one.
const StarterBody = z.object({ stage: z.string().max(100) });

/** Why a console without n8n's API key cannot add a starter (GET /api/stages says it too). */
export const STARTER_NEEDS_KEY =
  'Adding a starter from the console needs n8n’s API key (N8N_API_KEY); ask your trainer (make starter).';

type StarterDeps = Pick<ConsoleDeps, 'starters' | 'n8nApiKey' | 'n8nUrl' | 'fetchImpl'>;

/** POST /api/starter: the guide's workflow up to the stage before the chosen one, added unpublished to n8n. */
export function starterRoutes(deps: StarterDeps): Hono {
  const starters = deps.starters ?? 'on';
  const key = deps.n8nApiKey;
  if (starters === 'off' || key === undefined) {
    // Refused before the body is read: a lab without starters, or without n8n's key, says so whatever was asked.
    return new Hono().post('/', (c) => {
      if (starters === 'off') {
        const off = startersOff();
        return refuse(c, 403, off.code, off.message);
      }
      return c.json({ ok: false, error: { code: 'starter_unavailable', message: STARTER_NEEDS_KEY } }, 503);
    });
  }
  const connect = () =>
    new PublicApi({ url: deps.n8nUrl, ...(deps.fetchImpl ? { fetchImpl: deps.fetchImpl } : {}) }, key);
  return new Hono().post('/', jsonBody(StarterBody), async (c) => {
    try {
      const lines = await addStarter(connect, c.req.valid('json').stage, starters);
      return c.json({ ok: true, lines, message: lines.join(' ') });
    } catch (err) {
      // A refusal (400, 409) or n8n's refusal (502): one line.
      if (err instanceof StarterRefused) {
        const status = err.code === 'starter_published' ? 409 : 400;
        return c.json({ ok: false, error: { code: err.code, message: err.message } }, status);
      }
      if (err instanceof N8nError)
        return c.json({ ok: false, error: { code: 'n8n_failed', message: err.message } }, 502);
      throw err;
    }
  });
}
