import {
  type AlertValidation,
  buildCaseRecord,
  type CaseSelection,
  type IdentityCheck,
  type Json,
  type Outcome,
} from '../../decisions.js';
import type { Item, N8nHelpers } from '../code-node.js';

/** Build record: step 7, from whichever branch's outcome arrives. */
export function buildRecordNode({ $, $input }: N8nHelpers): Item<{ record: Json }>[] {
  const record = buildCaseRecord(
    $('Validate').first<AlertValidation & { valid: true }>().json,
    $('Check identity').first<IdentityCheck>().json.identity,
    $('Select case action').first<CaseSelection>().json.case_action,
    $input.first<{ outcome: Outcome }>().json.outcome,
  );
  return [{ json: { record } }];
}
