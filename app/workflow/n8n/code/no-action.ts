import { type ApprovalReading, noActionOutcome, type Outcome } from '../../decisions.js';
import type { Item, N8nHelpers } from '../code-node.js';

/** No action: step 5, rejection or timeout. */
export function noActionNode({ $input }: N8nHelpers): Item<{ outcome: Outcome }>[] {
  return [{ json: { outcome: noActionOutcome($input.first<ApprovalReading>().json) } }];
}
