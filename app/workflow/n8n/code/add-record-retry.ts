import { type Json, withRecordRetry } from '../../decisions.js';
import type { Item, N8nHelpers } from '../code-node.js';

/** Add record_retry: connector failure; only Record runs again, with the same record. */
export function addRecordRetryNode({ $ }: N8nHelpers): Item<{ record: Json }>[] {
  return [{ json: { record: withRecordRetry($('Build record').first<{ record: Json }>().json.record) } }];
}
