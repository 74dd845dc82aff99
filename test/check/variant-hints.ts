/** The hint each broken variant must produce, in the trainee's terms (variants.ts declares the mistakes). */
import type { ReferenceVariantName } from '../../app/check/variants.js';

export type MistakeName = Exclude<ReferenceVariantName, 'built-up-to-enrich'>;

export const HINTS: Record<MistakeName, RegExp> = {
  'no-environment-check':
    /a run with environment=production still called GET \/identity\/lab-admin: stop the run in Validate when environment is not training/,
  'enrich-wrong-user':
    /an alert for user nobody-\w+ called GET \/identity\/lab-admin .*: Enrich must use the alert's user field/,
  'threshold-above-80': /confidence 80 asked for no approval: Decide must use >= 80/,
  'block-before-approval':
    /POST \/blocklist was sent before the approver answered: move Block after the Wait node/,
  'block-for-an-hour':
    /the block has expires_minutes 60: send the alert's source_ip and event_id, and expires_minutes 10/,
  'record-without-approver':
    /the case does not name the approver \(approver-\w+\): take the approver from the Wait node's answer/,
  'second-case-on-duplicate': /there are 2 cases \(other event_id evt-chk-duplicate-\w+-update\)/,
  'block-repeated-after-connector-failure':
    /after the case write failed, POST \/blocklist was sent again: when Record fails, resume only Record/,
  'rollback-without-verifying-absence':
    /after DELETE \/blocklist\/203\.0\.113\.66 nothing checked the address: ask GET \/blocklist\/203\.0\.113\.66/,
};
