import { duplicateOutcome, type Outcome } from '../../decisions.js';
import type { Item } from '../code-node.js';

/** Keep first outcome: step 4, the case already says blocked. */
export function keepFirstOutcomeNode(): Item<{ outcome: Outcome }>[] {
  return [{ json: { outcome: duplicateOutcome() } }];
}
