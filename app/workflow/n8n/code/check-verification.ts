import {
  type AlertValidation,
  type ApprovalReading,
  type Outcome,
  verifiedBlockOutcome,
} from '../../decisions.js';
import type { HttpAnswer, Item, N8nHelpers } from '../code-node.js';

/** Check verification: step 6 on the verification lookup's answer. */
export function checkVerificationNode({ $, $input }: N8nHelpers): Item<{ outcome: Outcome }>[] {
  const r = $input.first<HttpAnswer>().json;
  const { alert } = $('Validate').first<AlertValidation & { valid: true }>().json;
  const { approver } = $('Read decision').first<ApprovalReading>().json;
  const outcome = verifiedBlockOutcome(r.statusCode, r.body, alert, approver, new Date().toISOString());
  return [{ json: { outcome } }];
}
