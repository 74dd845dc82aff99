import { jsonResponse } from '../errors.js';
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
        summary: 'All destination state: cases, notifications, blocklist and its history, request journal',
        responses: { 200: { description: 'The state', schema: StateSchema } },
      },
      () => jsonResponse(store.snapshot()),
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
