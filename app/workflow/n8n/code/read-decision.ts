import { type ApprovalReading, isJsonObject, readApproval } from '../../decisions.js';
import type { Item, N8nHelpers } from '../code-node.js';

/**
 * Read decision: step 5. The Wait node resumes either with the approver's POST (headers + body) or, when
 * the time limit passes, with its input item unchanged (the approval notification record: no headers).
 */
export function readDecisionNode({ $input }: N8nHelpers): Item<ApprovalReading>[] {
  const w = $input.first().json;
  const resumed = isJsonObject(w) && w.headers !== undefined && 'body' in w;
  return [{ json: readApproval(resumed, resumed ? w.body : undefined) }];
}
