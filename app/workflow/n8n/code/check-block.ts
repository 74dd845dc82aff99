import { type AlertValidation, type BlockCheck, checkBlock } from '../../decisions.js';
import type { HttpAnswer, Item, N8nHelpers } from '../code-node.js';

/** Check block: step 6 on Block's answer. */
export function checkBlockNode({ $, $input }: N8nHelpers): Item<BlockCheck>[] {
  const r = $input.first<HttpAnswer>().json;
  const { alert } = $('Validate').first<AlertValidation & { valid: true }>().json;
  return [{ json: checkBlock(r.statusCode, r.body, alert) }];
}
