/** The mock API as a Hono app: its dependencies, their defaults, and the app built from them without side effects. */
import { Hono } from 'hono';
import { z } from 'zod';
import { type AccessPolicy, accessCheck } from './http/access.js';
import { allowedMethods, type Endpoint, endpoint, mount } from './http/endpoint.js';
import type { AppEnv } from './http/env.js';
import { ApiError, renderError } from './http/errors.js';
import { JSON_CONTENT_TYPE } from './http/json-response.js';
import { type LogLine, withPipeline } from './http/pipeline.js';
import { buildOpenApi } from './openapi.js';
import { blocklistRoutes } from './routes/blocklist.js';
import { caseRoutes } from './routes/cases.js';
import { controlRoutes } from './routes/control.js';
import type { RouteDeps } from './routes/deps.js';
import { healthRoutes } from './routes/health.js';
import { identityRoutes } from './routes/identity.js';
import { notifyRoutes } from './routes/notify.js';
import { stateRoutes } from './routes/state.js';
import { createClock } from './store/clock.js';
import { Store } from './store/store.js';
import { API_VERSION } from './version.js';

export interface AppDeps {
  store: Store;
  /** Real wall time (the service clock is store.clock); injected so tests control both. */
  realNow: () => number;
  log: LogLine;
  logError: (err: unknown) => void;
  access: AccessPolicy;
}

/** Defaults for everything: a fresh store on real time, logs discarded, no access restrictions. */
export function defaultDeps(overrides: Partial<AppDeps> = {}): AppDeps {
  const realNow = overrides.realNow ?? Date.now;
  return {
    store: new Store(createClock(realNow)),
    realNow,
    log: () => {},
    logError: () => {},
    access: { allowedClients: null, allowedHosts: [] },
    ...overrides,
  };
}

/**
 * Builds the service. No side effects: it reads no environment and opens no socket, so every test can
 * build a fresh one. Its fetch is the pipeline (app/api/http/pipeline.ts): access control, the routes, then
 * the journal and the log line (which see every status); the router itself has no middleware.
 */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const routeDeps: RouteDeps = {
    store: deps.store,
    realNow: deps.realNow,
    startedAt: deps.realNow(),
    version: API_VERSION,
  };
  const endpoints: Endpoint[] = [
    ...healthRoutes(routeDeps),
    ...identityRoutes(),
    ...caseRoutes(routeDeps),
    ...notifyRoutes(routeDeps),
    ...blocklistRoutes(routeDeps),
    ...controlRoutes(routeDeps),
    ...stateRoutes(routeDeps),
  ];
  let document: Record<string, unknown> | undefined;
  let openApi: { origin: string; text: string } | undefined;
  endpoints.push(
    endpoint(
      {
        method: 'GET',
        path: '/openapi.json',
        operationId: 'getOpenApi',
        tag: 'service',
        summary: 'This document, generated from the schemas the routes validate with',
        responses: { 200: { description: 'OpenAPI 3.1', schema: z.looseObject({ openapi: z.string() }) } },
      },
      (c) => {
        // `servers` is the address the document was fetched from, so an imported document (Postman,
        // Bruno, Prism) points at this very service; the rest is generated once.
        const origin = new URL(c.req.url).origin;
        if (openApi?.origin !== origin) {
          document ??= buildOpenApi(endpoints, API_VERSION);
          const { openapi, ...rest } = document;
          const text = JSON.stringify({ openapi, servers: [{ url: origin }], ...rest });
          openApi = { origin, text };
        }
        return new Response(openApi.text, { headers: { 'content-type': JSON_CONTENT_TYPE } });
      },
    ),
  );

  const app = new Hono<AppEnv>();
  mount(app, endpoints);

  const methodsFor = allowedMethods(endpoints);
  app.notFound((c) => {
    const allow = methodsFor(c.req.path);
    if (allow.length === 0) throw new ApiError('not_found', `No route for ${c.req.method} ${c.req.path}.`);
    throw new ApiError(
      'method_not_allowed',
      `${c.req.method} is not allowed here; use ${allow.join(', ')}.`,
      {
        headers: { allow: allow.join(', ') },
      },
    );
  });
  app.onError((err) => renderError(err, deps.logError));
  // app.request() calls this.fetch, so tests go through the same pipeline as the socket.
  app.fetch = withPipeline(app.fetch, {
    store: deps.store,
    log: deps.log,
    logError: deps.logError,
    realNow: deps.realNow,
    checkAccess: accessCheck(deps.access),
  });
  return app;
}
