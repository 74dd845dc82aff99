import { type CaseSelection, selectCaseAction } from '../../decisions.js';
import type { HttpAnswer, Item, N8nHelpers } from '../code-node.js';

/** Select case action: step 3 on the case lookup's answer. */
export function selectCaseActionNode({ $input }: N8nHelpers): Item<CaseSelection>[] {
  const r = $input.first<HttpAnswer>().json;
  return [{ json: selectCaseAction(r.statusCode, r.body) }];
}
