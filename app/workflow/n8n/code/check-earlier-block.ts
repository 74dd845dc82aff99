import { type AlertValidation, earlierBlockOutcome, type Outcome } from '../../decisions.js';
import type { HttpAnswer, Item, N8nHelpers } from '../code-node.js';

/** Check earlier block: step 4 on the blocklist lookup of the update path. */
export function checkEarlierBlockNode({
  $,
  $input,
}: N8nHelpers): Item<{ earlier: false } | { earlier: true; outcome: Outcome }>[] {
  const r = $input.first<HttpAnswer>().json;
  const { alert } = $('Validate').first<AlertValidation & { valid: true }>().json;
  const outcome = earlierBlockOutcome(r.statusCode, r.body, alert, new Date().toISOString());
  return [{ json: outcome === null ? { earlier: false } : { earlier: true, outcome } }];
}
