/** POST /notify: record a notification the workflow sends. */
import { postEndpoint } from '../http/endpoint.js';
import { jsonResponse } from '../http/json-response.js';
import { unwrap } from '../http/refusal.js';
import { ErrorBodySchema } from '../schemas/error.js';
import { NotificationSchema, NotifyRequestSchema } from '../schemas/notification.js';
import type { RouteDeps } from './deps.js';

export function notifyRoutes({ store }: RouteDeps) {
  return [
    postEndpoint(
      {
        path: '/notify',
        operationId: 'notify',
        tag: 'notifications',
        summary: 'Accept a notification (works in every case_mode)',
        body: NotifyRequestSchema,
        responses: {
          202: { description: 'The accepted notification record', schema: NotificationSchema },
          507: { description: 'notification_limit_reached: reset the service', schema: ErrorBodySchema },
        },
      },
      (_c, request) =>
        jsonResponse(unwrap(store.notifications.acceptNotification(request, store.now())), 202),
    ),
  ];
}
