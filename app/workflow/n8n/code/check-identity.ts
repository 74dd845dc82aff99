import { type AlertValidation, checkIdentity, type IdentityCheck } from '../../decisions.js';
import type { HttpAnswer, Item, N8nHelpers } from '../code-node.js';

/** Check identity: step 2 on Enrich's answer. */
export function checkIdentityNode({ $, $input }: N8nHelpers): Item<IdentityCheck>[] {
  const r = $input.first<HttpAnswer>().json;
  const { alert } = $('Validate').first<AlertValidation & { valid: true }>().json;
  return [{ json: checkIdentity(r.statusCode, r.body, alert) }];
}
