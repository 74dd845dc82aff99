/** The lab console as a Hono app: the guard, then one router a resource, built without side effects. */
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { refuse } from '../service-kit/browser-guard.js';
import { guard } from './guard.js';
import { alertRoutes } from './routes/alerts.js';
import { approvalRoutes } from './routes/approvals.js';
import { checkRoutes } from './routes/check.js';
import { controlRoutes } from './routes/controls.js';
import type { ConsoleDeps } from './routes/deps.js';
import { eventRoutes } from './routes/events.js';
import { fieldRoutes } from './routes/fields.js';
import { pageRoutes } from './routes/page.js';
import { runRoutes } from './routes/runs.js';
import { sessionRoutes } from './routes/session.js';
import { stageRoutes } from './routes/stages.js';
import { starterRoutes } from './routes/starter.js';
import { stateRoutes } from './routes/state.js';

export type { ConsoleDeps } from './routes/deps.js';

/**
 * Builds the console. No side effects: it reads no environment and opens no socket (main.ts does). Every
 * request passes the guard first (guard.ts); then one router a resource (routes/), each given only the
 * dependencies it uses; what none answers is a 404, and a body that is not JSON a 400.
 */
export function createConsoleApp(deps: ConsoleDeps): Hono {
  const app = new Hono();
  app.use(guard({ allowedHosts: deps.allowedHosts, token: deps.token, sessions: deps.sessions }));

  app.route('/', pageRoutes(deps));
  app.route('/', fieldRoutes(deps));
  app.route('/api/session', sessionRoutes(deps));
  app.route('/api/state', stateRoutes(deps));
  app.route('/api/events', eventRoutes(deps));
  app.route('/api', controlRoutes(deps));
  app.route('/api/approve', approvalRoutes(deps));
  app.route('/api/alert', alertRoutes(deps));
  app.route('/api/check', checkRoutes(deps));
  app.route('/api/stages', stageRoutes(deps));
  app.route('/api/starter', starterRoutes(deps));
  app.route('/api/runs', runRoutes(deps));

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
