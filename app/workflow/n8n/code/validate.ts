import { type AlertValidation, validateAlert } from '../../decisions.js';
import type { Item, N8nHelpers } from '../code-node.js';

/** Validate: step 1 on the webhook's body. No request is made here. */
export function validateNode({ $ }: N8nHelpers): Item<AlertValidation>[] {
  return [{ json: validateAlert($('Webhook').first<{ body: unknown }>().json.body) }];
}
