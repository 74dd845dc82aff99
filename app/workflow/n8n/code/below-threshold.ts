import { belowThresholdOutcome, type Outcome } from '../../decisions.js';
import type { Item } from '../code-node.js';

/** Below threshold: step 4's no-containment outcome. */
export function belowThresholdNode(): Item<{ outcome: Outcome }>[] {
  return [{ json: { outcome: belowThresholdOutcome() } }];
}
