/** The lab's control routes: switch the case connector, move the clock. */
import { postEndpoint } from '../http/endpoint.js';
import { jsonResponse } from '../http/json-response.js';
import {
  CaseModeRequestSchema,
  CaseModeResponseSchema,
  ClockRequestSchema,
  ClockResponseSchema,
} from '../schemas/control.js';
import { iso } from '../store/clock.js';
import type { RouteDeps } from './deps.js';

export function controlRoutes({ store }: RouteDeps) {
  return [
    postEndpoint(
      {
        path: '/control/case-mode',
        operationId: 'setCaseMode',
        tag: 'control',
        summary: 'Make the case connector healthy, failed, or fail the next write once',
        body: CaseModeRequestSchema,
        responses: { 200: { description: 'The new and the previous mode', schema: CaseModeResponseSchema } },
      },
      (_c, { mode }) => jsonResponse({ case_mode: mode, previous_mode: store.connector.setMode(mode) }),
    ),
    postEndpoint(
      {
        path: '/control/clock',
        operationId: 'advanceClock',
        tag: 'control',
        summary:
          'Move the service clock forward (lab aid: show expiry in seconds); reset returns to real time',
        body: ClockRequestSchema,
        responses: { 200: { description: 'The service clock now', schema: ClockResponseSchema } },
      },
      (_c, { advance_minutes }) => {
        store.clock.advance(advance_minutes * 60_000);
        return jsonResponse({ now: iso(store.now()) });
      },
    ),
  ];
}
