import { JSON_CONTENT_TYPE, jsonResponse } from '../errors.js';
import { endpoint, postEndpoint } from '../http/endpoint.js';
import { ResetRequestSchema, ResetResponseSchema, StateSchema } from '../schemas/state.js';
import type { RouteDeps } from './deps.js';

export function stateRoutes({ store }: RouteDeps) {
  return [
    endpoint(
      {
        method: 'GET',
        path: '/state',
        operationId: 'getState',
        tag: 'service',
        summary:
          'All destination state: cases, notifications, blocklist and its history, request journal. ' +
          'Answers 304 to an If-None-Match naming the current ETag (the state is unchanged; only `now` moved).',
        responses: { 200: { description: 'The state', schema: StateSchema } },
      },
      (c) => {
        const now = store.now();
        const etag = store.etagAt(now);
        const validators = { etag, 'cache-control': 'no-cache' };
        const ifNoneMatch = c.req.header('if-none-match');
        if (ifNoneMatch !== undefined && etagMatches(ifNoneMatch, etag)) {
          return new Response(null, { status: 304, headers: validators });
        }
        return new Response(store.stateBody(now), {
          status: 200,
          headers: { 'content-type': JSON_CONTENT_TYPE, ...validators },
        });
      },
    ),
    postEndpoint(
      {
        path: '/reset',
        operationId: 'reset',
        tag: 'service',
        summary: 'Clear all state, make the connector healthy, return the clock to real time',
        body: ResetRequestSchema,
        responses: { 200: { description: 'Reset done', schema: ResetResponseSchema } },
      },
      () => {
        store.reset();
        return jsonResponse({ reset: true, case_mode: 'healthy' });
      },
    ),
  ];
}

/** If-None-Match's weak comparison (RFC 9110, 13.1.2): `*`, or a list naming the tag, W/ or not. */
export function etagMatches(header: string, etag: string): boolean {
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  for (const part of header.split(',')) {
    const tag = part.trim();
    if (tag === '*' || (tag.startsWith('W/') ? tag.slice(2) : tag) === opaque) return true;
  }
  return false;
}
