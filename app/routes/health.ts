import { jsonResponse } from '../errors.js';
import { endpoint } from '../http/endpoint.js';
import { type Health, HealthSchema } from '../schemas/health.js';
import { LIMITS } from '../store/store.js';
import type { RouteDeps } from './deps.js';

export function healthRoutes({ store, realNow, startedAt, version }: RouteDeps) {
  return [
    endpoint(
      {
        method: 'GET',
        path: '/health',
        operationId: 'getHealth',
        tag: 'service',
        summary: 'Service health and the case connector mode',
        responses: { 200: { description: 'The service is up', schema: HealthSchema } },
      },
      () => {
        const now = store.now();
        const health: Health = {
          status: 'ok',
          case_mode: store.connector.mode,
          uptime_s: Math.floor((realNow() - startedAt) / 1000),
          counts: {
            cases: store.cases.size,
            notifications: store.notifications.size,
            blocklist: store.blocklist.active(now).length,
          },
          limits: { cases: LIMITS.cases, notifications: LIMITS.notifications },
          version,
        };
        return jsonResponse(health);
      },
    ),
  ];
}
