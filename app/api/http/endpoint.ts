/** One route declared once: its method, path, schemas and answers, for the router and the OpenAPI document. */
import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import type { ErrorCode } from '../schemas/error.js';
import { compileFastParse } from '../schemas/fast-parse.js';
import type { AppEnv } from './env.js';
import { ApiError } from './errors.js';
import { readJsonObject } from './json-body.js';

export type Method = 'GET' | 'POST' | 'DELETE';

export interface ResponseSpec {
  description: string;
  schema: z.ZodType;
  /** Headers always sent with this status: name → description. Documented as required. */
  headers?: Record<string, string>;
}

/** A path parameter: its schema is what the route receives, and its code what a bad value is answered with. */
export interface ParamSpec {
  description: string;
  schema: z.ZodType;
  /** A 400 error code; the document lists it under the route's 400 answer. */
  code: ErrorCode;
}

/** One route, declared once: the router registers it and the OpenAPI document is generated from it. */
export interface EndpointSpec {
  method: Method;
  /** Hono syntax, e.g. `/cases/:event_id`. */
  path: string;
  /** A plain identifier (`getCase`): generated clients name their functions after it. */
  operationId: string;
  summary: string;
  tag: string;
  params?: Record<string, ParamSpec>;
  body?: z.ZodType;
  responses: Record<number, ResponseSpec>;
}

export interface Endpoint {
  spec: EndpointSpec;
  handle(c: Context<AppEnv>): Response | Promise<Response>;
}

type Params<P extends Record<string, ParamSpec>> = { [K in keyof P]: z.output<P[K]['schema']> };
const NO_PARAMS = Object.freeze({});

/**
 * A route without a body (GET, DELETE). Its path parameters are parsed by their declared schemas
 * before the handler runs; a value that fails is answered 400 with the parameter's code.
 */
export function endpoint<P extends Record<string, ParamSpec> = Record<never, ParamSpec>>(
  spec: Omit<EndpointSpec, 'body' | 'params'> & { params?: P },
  handle: (c: Context<AppEnv>, params: Params<P>) => Response | Promise<Response>,
): Endpoint {
  const declared = Object.entries(spec.params ?? {});
  // A route without parameters allocates nothing per request.
  if (declared.length === 0) return { spec, handle: (c) => handle(c, NO_PARAMS as Params<P>) };
  return {
    spec,
    handle(c) {
      const params: Record<string, unknown> = {};
      for (const [name, { schema, code }] of declared) {
        const raw = c.req.param(name) ?? '';
        const parsed = schema.safeParse(raw);
        if (!parsed.success) {
          const reason = parsed.error.issues[0]?.message ?? 'invalid';
          throw new ApiError(code, `The ${name} ${JSON.stringify(raw)} is not valid: ${reason}.`, {
            details: parsed.error.issues.map((issue) => ({ path: name, message: issue.message })),
          });
        }
        params[name] = parsed.data;
      }
      return handle(c, params as Params<P>);
    },
  };
}

/** A POST route: the contract's POST rules, then the fields parsed by the route's own schema (422). */
export function postEndpoint<S extends z.ZodType>(
  spec: Omit<EndpointSpec, 'method' | 'body' | 'params'> & { body: S },
  handle: (c: Context<AppEnv>, body: z.output<S>) => Response | Promise<Response>,
): Endpoint {
  // The common, valid body is checked by a compiled copy of the schema (schemas/fast-parse.ts); any
  // other body, and every refusal, is zod's.
  const fast = compileFastParse(spec.body);
  const validated = (c: Context<AppEnv>, raw: Record<string, unknown>) => {
    const quick = fast?.(raw);
    if (quick !== undefined) return handle(c, quick);
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
  };
  return {
    spec: { ...spec, method: 'POST' },
    handle(c) {
      const raw = readJsonObject(c);
      // A body read before the request reached the app is answered synchronously (http/early-body.ts).
      return raw instanceof Promise ? raw.then((body) => validated(c, body)) : validated(c, raw);
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
