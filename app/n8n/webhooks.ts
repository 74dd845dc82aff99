/**
 * Which webhook paths a workflow listens on: the Webhook nodes of its published version (n8n 2.x keeps a
 * draft beside it). `solution` refuses to publish on a path another published workflow holds, since n8n
 * would refuse it anyway (409 "There is a conflict with one of the webhooks").
 */
import { z } from 'zod';
import { webhookUrl } from '../driver/webhook-path.js';
import type { Workflow } from './client.js';

const WebhookParametersSchema = z.object({ path: z.string().min(1), httpMethod: z.string().optional() });

export interface Listener {
  method: string;
  path: string;
}

/** The method and path of every Webhook node (n8n's default method is GET). */
export function webhooksOf(nodes: readonly { type: string; parameters?: unknown }[]): Listener[] {
  return nodes.flatMap((node) => {
    if (node.type !== 'n8n-nodes-base.webhook') return [];
    const parsed = WebhookParametersSchema.safeParse(node.parameters);
    return parsed.success ? [{ method: parsed.data.httpMethod ?? 'GET', path: parsed.data.path }] : [];
  });
}

/** What a published workflow listens on: its live version's webhooks. */
export function liveWebhooks(workflow: Workflow): Listener[] {
  if (!workflow.active) return [];
  return webhooksOf(workflow.activeVersion?.nodes ?? workflow.nodes);
}

/** The published workflow (other than `except`) listening on `method path`, if any. */
export function holderOf(
  published: readonly Workflow[],
  listener: Listener,
  except?: string,
): Workflow | undefined {
  return published.find(
    (w) =>
      w.id !== except &&
      liveWebhooks(w).some((l) => l.method === listener.method && l.path === listener.path),
  );
}

/**
 * Whether a published workflow holds `POST /webhook/<path>`, asked without starting a run: n8n answers a
 * GET on a path registered for POST only with 404 "This webhook is not registered for GET requests. Did
 * you mean to make a POST request?", and an unknown path with 404 "... is not registered".
 */
export async function postWebhookListening(
  n8nUrl: string,
  path: string,
  fetchImpl: typeof fetch = fetch,
): Promise<boolean> {
  const url = webhookUrl(n8nUrl, path.replace(/^\/+/, ''));
  const answer = await fetchImpl(url, { signal: AbortSignal.timeout(10_000) });
  const text = await answer.text();
  return answer.status === 404 && /not registered for GET requests/.test(text);
}
