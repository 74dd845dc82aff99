/** GET /health: the mock API's version, uptime and the case connector's mode. */
import { endpoint } from '../http/endpoint.js';
import { jsonTextResponse } from '../http/json-response.js';
import { type Health, HealthSchema } from '../schemas/health.js';
import { LIMITS } from '../store/store.js';
import type { RouteDeps } from './deps.js';

export function healthRoutes({ store, realNow, startedAt, version: apiVersion }: RouteDeps) {
  let cached: { version: number; uptime: number; text: string } | undefined;
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
        // Everything in the answer but uptime_s moves only with the state's version: the text is made
        // once per version and uptime second (GET /health is what monitors poll).
        const now = store.now();
        const version = store.versionAt(now);
        const uptime = Math.floor((realNow() - startedAt) / 1000);
        if (cached?.version !== version || cached.uptime !== uptime) {
          const health: Health = {
            status: 'ok',
            case_mode: store.connector.mode,
            uptime_s: uptime,
            counts: {
              cases: store.cases.size,
              notifications: store.notifications.size,
              blocklist: store.blocklist.count(now),
            },
            limits: { cases: LIMITS.cases, notifications: LIMITS.notifications },
            version: apiVersion,
          };
          cached = { version, uptime, text: JSON.stringify(health) };
        }
        return jsonTextResponse(cached.text);
      },
    ),
  ];
}
