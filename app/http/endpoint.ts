import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import { ApiError } from '../errors.js';
import type { AppEnv } from './env.js';
import { readJsonObject } from './json-body.js';

export type Method = 'GET' | 'POST' | 'DELETE';

export interface ResponseSpec {
  description: string;
  schema: z.ZodType;
  headers?: Record<string, string>;
}

/** One route, declared once: the router registers it and the OpenAPI document is generated from it. */
export interface EndpointSpec {
  method: Method;
  /** Hono syntax, e.g. `/cases/:event_id`. */
  path: string;
  summary: string;
  tag: string;
  params?: Record<string, { description: string; schema: z.ZodType }>;
  body?: z.ZodType;
  responses: Record<number, ResponseSpec>;
}

export interface Endpoint {
  spec: EndpointSpec;
  handle(c: Context<AppEnv>): Response | Promise<Response>;
}

type Handler = (c: Context<AppEnv>) => Response | Promise<Response>;

/** A route without a body (GET, DELETE). */
export function endpoint(spec: Omit<EndpointSpec, 'body'>, handle: Handler): Endpoint {
  return { spec, handle };
}

/** A POST route: the contract's POST rules, then the fields parsed by the route's own schema (422). */
export function postEndpoint<S extends z.ZodType>(
  spec: Omit<EndpointSpec, 'method' | 'body'> & { body: S },
  handle: (c: Context<AppEnv>, body: z.output<S>) => Response | Promise<Response>,
): Endpoint {
  return {
    spec: { ...spec, method: 'POST' },
    async handle(c) {
      const raw = await readJsonObject(c);
      const parsed = spec.body.safeParse(raw);
      if (!parsed.success) {
        throw new ApiError('validation_failed', 'The body has invalid fields; see details.', {
          details: parsed.error.issues.map((issue) => ({
            path: issue.path.length > 0 ? issue.path.map(String).join('.') : '(body)',
            message: issue.message,
          })),
        });
      }
      return handle(c, parsed.data);
    },
  };
}

export function mount(app: Hono<AppEnv>, endpoints: readonly Endpoint[]): void {
  for (const { spec, handle } of endpoints) app.on(spec.method, spec.path, handle);
}

/**
 * The methods a path answers to, for 405 and its Allow header. Built once from the declarations, so it
 * cannot drift from the router; only consulted on the not-found path.
 */
export function allowedMethods(endpoints: readonly Endpoint[]): (path: string) => string[] {
  const patterns = endpoints.map(({ spec }) => ({
    method: spec.method,
    regex: new RegExp(`^${spec.path.replace(/:[^/]+/g, '[^/]+')}$`),
  }));
  return (path) => {
    const methods = new Set<string>();
    for (const { method, regex } of patterns) {
      if (!regex.test(path)) continue;
      methods.add(method);
      if (method === 'GET') methods.add('HEAD');
    }
    return [...methods];
  };
}
