/**
 * A webhook path as people type it: `suspicious-login`, `/suspicious-login` or `webhook/suspicious-login`
 * all name `<n8n>/webhook/suspicious-login`. The checker's --webhook-path and the console's
 * ALERT_WEBHOOK_PATH read it the same way, so both post to the same URL.
 */
import { z } from 'zod';

export const WebhookPathSchema = z
  .string()
  .trim()
  .transform((p) => p.replace(/^\/+/, '').replace(/^webhook\//, ''))
  .pipe(z.string().regex(/^[A-Za-z0-9._~/-]+$/, 'a webhook path: letters, digits, - _ . ~ /'));

/** The production URL of a webhook path (not the editor's test URL, /webhook-test/...). */
export function webhookUrl(origin: string, path: string): string {
  return `${origin.replace(/\/+$/, '')}/webhook/${path}`;
}
