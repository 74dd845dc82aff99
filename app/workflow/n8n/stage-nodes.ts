/**
 * The reference workflow's nodes by name where other code names them, and by the stage that adds them: the
 * scripted trainee's partial workflows (partial.ts) cut the reference by these. The lab's starters are the
 * trainee guide's workflow instead (app/workflow/guide), which has other nodes (no Settings node, another
 * way to the case system's failure). Nothing here imports more than the constants and the stages' names.
 * They stay in the workflow's room, not in app/stages: they name the reference workflow's nodes, which a
 * trainee's workflow need not share.
 */
import type { StageName } from '../../stages/stages.js';
import { APPROVAL_THRESHOLD, HEALTH_POLL_INTERVAL_SECONDS } from '../constants.js';

/** The approval router; its name carries the threshold. */
export const DECIDE = `Decide (confidence >= ${APPROVAL_THRESHOLD})`;
/** The pause between two polls of the case system's health. */
export const WAIT_POLL = `Wait ${HEALTH_POLL_INTERVAL_SECONDS} s`;

/**
 * The response workflow's nodes by the stage that adds them, for every stage (typed by StageName; a test
 * holds their order equal to STAGE_NAMES). `rollback` adds the second workflow.
 */
export const STAGE_NODES = {
  webhook: ['Webhook', 'Settings'],
  validate: ['Validate', 'Valid?', 'Notify validation error', 'Stop: alert rejected'],
  enrich: ['Enrich', 'Check identity', 'Identity ok?'],
  'case-lookup': ['Case lookup', 'Select case action'],
  // Decide asks for approval at the threshold (the guide's stage 5, the checker's decide stage): Request
  // approval comes with the two routers between Decide and it, whose other outputs lead to Idempotency's.
  decide: [
    DECIDE,
    'Below threshold',
    'Build record',
    'Record',
    'Duplicate delivery?',
    'Case exists?',
    'Request approval',
  ],
  approve: ['Wait for approval', 'Read decision', 'Approved?', 'No action'],
  block: ['Block', 'Check block', 'Verify block', 'Check verification'],
  record: ['Case written?', 'Done'],
  idempotency: ['Keep first outcome', 'Blocklist lookup', 'Check earlier block', 'Blocked by this event?'],
  'connector-failure': [
    'Connector failure?',
    'Stop: case write failed',
    'Notify owner',
    'Health',
    'Healthy?',
    'Polls left?',
    WAIT_POLL,
    'Stop: connector not recovered',
    'Add record_retry',
  ],
  rollback: [],
} as const satisfies Record<StageName, readonly string[]>;
