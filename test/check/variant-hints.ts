/**
 * The hint each broken variant must produce, in the trainee's terms (variants.ts declares the mistakes), and
 * the want/got line the terminal prints under it.
 */
import type { ReferenceVariantName } from '../../app/check/variants.js';

/** The mistakes judged to the end: every stage judged, a FAIL's hint and `mismatch:` printed under it. */
export type MistakeName = Exclude<ReferenceVariantName, 'built-up-to-enrich' | StoppingMistake>;
/** The mistakes that stop the check in one line (nothing listens where the alerts are sent: exit 2). */
export type StoppingMistake = 'webhook-path-typo';

export const HINTS: Record<MistakeName | StoppingMistake, RegExp> = {
  'webhook-path-typo':
    /nothing listens on POST \/webhook\/suspicious-login \(n8n answered 404\): publish your alert workflow, its Webhook node set to HTTP method POST and path suspicious-login/,
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

/** The `mismatch:` line each broken variant prints under its hint: what was wanted, and what came. */
export const MISMATCHES: Record<MistakeName, RegExp> = {
  'no-environment-check':
    /mismatch: enrichment, response and approval requests with environment=production: want 0, got 2 \(GET \/identity\/lab-admin \(200\), GET \/cases\/evt-chk-validate-production-\w+ \(404\)\)\n/,
  'enrich-wrong-user':
    /mismatch: GET \/identity\/nobody-\w+: want 1 request, got 0 \(asked GET \/identity\/lab-admin \(200\)\)\n/,
  'threshold-above-80':
    /mismatch: approval requests \(POST \/notify carrying the resume URL\): want at least 1, got 0\n/,
  'block-before-approval':
    /mismatch: POST \/blocklist before the approver answered: want 0 requests, got 1 \(POST \/blocklist \(201\)\)\n/,
  'block-for-an-hour': /mismatch: blocklist 203\.0\.113\.66 expires_minutes: want 10, got 60\n/,
  'record-without-approver':
    /mismatch: case evt-chk-positive-92-(\w+) approver: want approver-\1, got null\n/,
  'second-case-on-duplicate':
    /mismatch: cases: want 1 \(event (evt-chk-duplicate-\w+)\), got 2 \(events \1, \1-update\)\n/,
  'block-repeated-after-connector-failure':
    /mismatch: POST \/blocklist: want 1 request in all, got 2 \(POST \/blocklist \(201\), POST \/blocklist \(409\)\)\n/,
  'rollback-without-verifying-absence':
    /mismatch: GET \/blocklist\/203\.0\.113\.66 after the DELETE: want 1 request, got 0\n/,
};
