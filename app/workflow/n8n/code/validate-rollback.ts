import { type RollbackTrigger, validateRollbackTrigger } from '../../decisions.js';
import type { Item, N8nHelpers } from '../code-node.js';

/** Rollback Validate: the trigger must name an event. */
export function validateRollbackNode({ $ }: N8nHelpers): Item<RollbackTrigger>[] {
  return [{ json: validateRollbackTrigger($('Webhook').first<{ body: unknown }>().json.body) }];
}
