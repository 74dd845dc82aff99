/** POST /api/alert: one of the lab's test alerts sent to the workflow's alert webhook. */
import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import { z } from 'zod';
import { webhookUrl } from '../../driver/webhook-path.js';
import { parseBody } from '../../mock-api-client/client.js';
import { RESPONSE_WEBHOOK_PATH } from '../../workflow/constants.js';
import {
  alertPayload,
  LAB_ADDRESS,
  LAB_USER,
  TEST_ALERT_KINDS,
  TEST_ALERTS,
} from '../../workflow/scenario.js';
import type { ConsoleDeps } from './deps.js';
import { jsonBody } from './json-body.js';

const AlertBody = z.object({ kind: z.enum(TEST_ALERT_KINDS) });

type AlertDeps = Pick<ConsoleDeps, 'n8nUrl' | 'alertWebhookPath' | 'fetchImpl'>;

/**
 * POST /api/alert: one of the lab's test alerts, sent to the workflow's alert webhook under a fresh event
 * id; the answer says what the workflow answered, or what to do when nothing listens there.
 */
export function alertRoutes(deps: AlertDeps): Hono {
  const alertUrl = webhookUrl(deps.n8nUrl, deps.alertWebhookPath ?? RESPONSE_WEBHOOK_PATH);
  return new Hono().post('/', jsonBody(AlertBody), async (c) => {
    const b = c.req.valid('json');
    // The time, and a random part: two clicks within one millisecond are two alerts, not one delivered twice.
    const eventId = `evt-console-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
    const payload = alertPayload({ eventId, sourceIp: LAB_ADDRESS, user: LAB_USER }, TEST_ALERTS[b.kind]);
    try {
      const res = await (deps.fetchImpl ?? fetch)(alertUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload),
        redirect: 'manual',
        signal: AbortSignal.timeout(5000),
      });
      const answer = parseBody((await res.text()).slice(0, 2000));
      const path = new URL(alertUrl).pathname;
      const message =
        res.status === 404
          ? `Nothing listens on POST ${path}: publish your workflow, its Webhook node set to POST with the path ${path.replace(/^\/webhook\//, '')}.`
          : `Test alert sent as ${eventId} to POST ${path}; the workflow answered ${res.status}.`;
      return c.json({ ok: res.ok, status: res.status, event_id: eventId, url: alertUrl, message, answer });
    } catch (err) {
      return c.json(
        { ok: false, status: 0, message: `workflow platform unreachable: ${(err as Error).message}` },
        502,
      );
    }
  });
}
