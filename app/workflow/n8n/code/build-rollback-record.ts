import { buildRollbackRecord, type Json, type RollbackTrigger } from '../../decisions.js';
import type { HttpAnswer, Item, N8nHelpers } from '../code-node.js';

/** Build rollback record: absence verified; requested_at was taken by Settings when the trigger came. */
export function buildRollbackRecordNode({ $ }: N8nHelpers): Item<{ record: Json }>[] {
  const record = buildRollbackRecord(
    String($('Validate').first<RollbackTrigger>().json.event_id),
    String($('Case lookup').first<{ body: { source_ip: string } }>().json.body.source_ip),
    $('Unblock').first<HttpAnswer>().json.statusCode === 200,
    $('Settings').first<{ requested_at: string }>().json.requested_at,
    new Date().toISOString(),
  );
  return [{ json: { record } }];
}
