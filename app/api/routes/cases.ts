/** The cases' routes: write a case and read one by its event id. */
import { endpoint, postEndpoint } from '../http/endpoint.js';
import { ApiError } from '../http/errors.js';
import { jsonResponse, jsonTextResponse } from '../http/json-response.js';
import { unwrap } from '../http/refusal.js';
import { CaseSchema, CaseWriteSchema } from '../schemas/case.js';
import { EventIdSchema } from '../schemas/common.js';
import { ErrorBodySchema } from '../schemas/error.js';
import type { RouteDeps } from './deps.js';

export function caseRoutes({ store }: RouteDeps) {
  const connectorFailed = { description: 'case_connector_failed (case_mode)', schema: ErrorBodySchema };
  return [
    endpoint(
      {
        method: 'GET',
        path: '/cases/:event_id',
        operationId: 'getCase',
        tag: 'cases',
        summary: 'Look up the case of an event',
        params: {
          event_id: {
            description: 'The event identifier (percent-encoded)',
            schema: EventIdSchema,
            code: 'invalid_parameter',
          },
        },
        responses: {
          200: { description: 'The case', schema: CaseSchema },
          404: { description: 'case_not_found', schema: ErrorBodySchema },
          503: connectorFailed,
        },
      },
      (_c, { event_id: eventId }) => {
        unwrap(store.connector.read());
        const found = store.cases.find(eventId);
        if (!found)
          throw new ApiError('case_not_found', `No case exists for event ${JSON.stringify(eventId)}.`);
        return jsonResponse(found);
      },
    ),
    postEndpoint(
      {
        path: '/cases',
        operationId: 'upsertCase',
        tag: 'cases',
        summary: 'Create the case of an event, or update it (one case per event_id)',
        body: CaseWriteSchema,
        responses: {
          200: { description: 'The case was updated', schema: CaseSchema },
          201: {
            description: 'The case was created',
            schema: CaseSchema,
            headers: { Location: '/cases/<event_id>, percent-encoded' },
          },
          503: connectorFailed,
          507: {
            description:
              'case_limit_reached: reset the service; or case_too_large: this update would grow the case past 64 KiB',
            schema: ErrorBodySchema,
          },
        },
      },
      (_c, write) => {
        unwrap(store.connector.write());
        const { case: record, created, json } = unwrap(store.cases.upsertCase(write, store.now()));
        return created
          ? jsonTextResponse(json, 201, { location: `/cases/${encodeURIComponent(record.event_id)}` })
          : jsonTextResponse(json, 200);
      },
    ),
  ];
}
