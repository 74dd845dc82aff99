/**
 * "Suspicious Login Response" on n8n (docs/workflow-protocol.md, docs/n8n.md): every node once, with its
 * place in the editor and where its outputs lead. The Code nodes' bodies are in ./code/ and call the
 * decisions of ../decisions.ts; expressions and parameters take their numbers from ../constants.ts, and the
 * approval limit's rule and default from app/lab-settings.
 *
 * A variant (a broken copy for the stage checker, say) is `responseWorkflow({ 'Node name': override })`:
 * e.g. `{ 'Check block': { parameters: codeParameters('/abs/path/my-check-block.ts') } }` for other code,
 * or `{ 'Approved?': (n) => ({ ...n, next: [['Block'], ['Block']] }) }` for other wiring.
 */

import { n8nWholeExpression } from '../../lab-settings/rules.js';
import { APPROVAL_TIMEOUT_SECONDS } from '../../lab-settings/settings.js';
import {
  APPROVAL_THRESHOLD,
  BLOCK_EXPIRES_MINUTES,
  HEALTH_POLL_INTERVAL_SECONDS,
  HEALTH_POLL_TRIES,
  RESPONSE_WEBHOOK_PATH,
  RESPONSE_WORKFLOW,
} from '../constants.js';
import {
  applyOverrides,
  buildWorkflow,
  code,
  http,
  iff,
  type N8nExport,
  type NodeSpec,
  noOp,
  type Overrides,
  settings,
  stop,
  wait,
  webhook,
} from './build.js';
import { DECIDE, WAIT_POLL } from './stage-nodes.js';

export const RESPONSE_ID = 'SuspLoginResp001';

/** The mapped alert, as later nodes read it. */
const ALERT = "$('Validate').first().json.alert";
const SETTING = "$('Settings').first().json";

const POLLS = `at most ${HEALTH_POLL_TRIES} polls, ${HEALTH_POLL_INTERVAL_SECONDS} s apart`;

const approvalBody = [
  '{',
  "channel: 'approval', recipient: 'soc-approver',",
  `subject: 'Approval requested: block ' + ${ALERT}.source_ip,`,
  `message: 'Suspicious login of ' + ${ALERT}.user + ' from ' + ${ALERT}.source_ip + ' (event ' + ${ALERT}.event_id + ', confidence ' + ${ALERT}.confidence + '). To block ' + ${ALERT}.source_ip + ' for ${BLOCK_EXPIRES_MINUTES} minutes POST {"decision": "approve", "approver": "<your name>"} to resume_url; {"decision": "reject", ...} or no answer within ' + ${SETTING}.approval_timeout_seconds + ' s takes no action.',`,
  `event_id: ${ALERT}.event_id, severity: 'high', decision_requested: 'block_source_ip',`,
  `source_ip: ${ALERT}.source_ip, expires_minutes: ${BLOCK_EXPIRES_MINUTES}, resume_url: $execution.resumeUrl`,
  '}',
].join(' ');

const ownerBody = [
  '{',
  "channel: 'owner', recipient: 'case-owner',",
  `subject: 'Case write failed: ' + ${ALERT}.event_id,`,
  `message: 'POST /cases answered ' + $json.statusCode + ' (' + (($json.body && $json.body.error && $json.body.error.code) || 'error') + ') for event ' + ${ALERT}.event_id + ' (result ' + $('Build record').first().json.record.result + '). The block is not repeated; only the case write is resumed once GET /health reports case_mode healthy (${POLLS}).',`,
  `event_id: ${ALERT}.event_id, severity: 'high', pending: 'record'`,
  '}',
].join(' ');

const validationBody =
  "{ channel: 'validation', recipient: 'soc-analyst', subject: 'Alert rejected by validation', message: $json.errors.join('; '), event_id: $json.event_id, severity: 'low', errors: $json.errors }";

/** The reference's nodes, in the order of the export (their ids follow it). */
export function responseNodes(): NodeSpec[] {
  return [
    webhook(RESPONSE_WEBHOOK_PATH, [0, 0], 'Settings'),
    settings([1, 0], 'Validate', [
      {
        name: 'approval_timeout_seconds',
        value: `={{ ${n8nWholeExpression(APPROVAL_TIMEOUT_SECONDS)} }}`,
        type: 'number',
      },
    ]),
    code('Validate', [2, 0], 'validate.ts', 'Valid?'),
    iff('Valid?', [3, 0], '$json.valid === true', 'Enrich', 'Notify validation error'),
    http(
      'Notify validation error',
      [5, -2],
      { method: 'POST', path: '/notify', body: validationBody, full: false },
      'Stop: alert rejected',
    ),
    stop(
      'Stop: alert rejected',
      [6, -2],
      "={{ 'Alert rejected: ' + (Array.isArray($json.errors) ? $json.errors.join('; ') : $json.message) }}",
    ),
    http(
      'Enrich',
      [4, 0],
      { method: 'GET', path: `/identity/{{ encodeURIComponent(${ALERT}.user) }}` },
      'Check identity',
    ),
    code('Check identity', [5, 0], 'check-identity.ts', 'Identity ok?'),
    iff('Identity ok?', [6, 0], '$json.valid === true', 'Case lookup', 'Notify validation error'),
    http(
      'Case lookup',
      [7, 0],
      { method: 'GET', path: `/cases/{{ encodeURIComponent(${ALERT}.event_id) }}` },
      'Select case action',
    ),
    code('Select case action', [8, 0], 'select-case-action.ts', DECIDE),
    iff(
      DECIDE,
      [9, 0],
      `${ALERT}.confidence >= ${APPROVAL_THRESHOLD}`,
      'Duplicate delivery?',
      'Below threshold',
    ),
    code('Below threshold', [10, -2], 'below-threshold.ts', 'Build record'),
    iff(
      'Duplicate delivery?',
      [10, 0],
      "$('Select case action').first().json.duplicate === true",
      'Keep first outcome',
      'Case exists?',
    ),
    code('Keep first outcome', [11, -1], 'keep-first-outcome.ts', 'Build record'),
    iff(
      'Case exists?',
      [11, 1],
      "$('Select case action').first().json.case_action === 'update'",
      'Blocklist lookup',
      'Request approval',
    ),
    http(
      'Blocklist lookup',
      [12, 0],
      { method: 'GET', path: `/blocklist/{{ encodeURIComponent(${ALERT}.source_ip) }}` },
      'Check earlier block',
    ),
    code('Check earlier block', [13, 0], 'check-earlier-block.ts', 'Blocked by this event?'),
    iff('Blocked by this event?', [14, 0], '$json.earlier === true', 'Build record', 'Request approval'),
    http(
      'Request approval',
      [15, 1],
      { method: 'POST', path: '/notify', body: approvalBody, full: false },
      'Wait for approval',
    ),
    wait(
      'Wait for approval',
      [16, 1],
      {
        resume: 'webhook',
        httpMethod: 'POST',
        limitWaitTime: true,
        limitType: 'afterTimeInterval',
        resumeAmount: `={{ ${SETTING}.approval_timeout_seconds }}`,
        resumeUnit: 'seconds',
        options: {},
      },
      'Read decision',
    ),
    code('Read decision', [17, 1], 'read-decision.ts', 'Approved?'),
    iff('Approved?', [18, 1], '$json.approved === true', 'Block', 'No action'),
    code('No action', [19, 0], 'no-action.ts', 'Build record'),
    http(
      'Block',
      [19, 2],
      {
        method: 'POST',
        path: '/blocklist',
        body: `{ ip: ${ALERT}.source_ip, event_id: ${ALERT}.event_id, expires_minutes: ${BLOCK_EXPIRES_MINUTES} }`,
      },
      'Check block',
    ),
    code('Check block', [20, 2], 'check-block.ts', 'Verify block'),
    http(
      'Verify block',
      [21, 2],
      { method: 'GET', path: `/blocklist/{{ encodeURIComponent(${ALERT}.source_ip) }}` },
      'Check verification',
    ),
    code('Check verification', [22, 2], 'check-verification.ts', 'Build record'),
    code('Build record', [23, 0], 'build-record.ts', 'Record'),
    http('Record', [24, 0], { method: 'POST', path: '/cases', body: '$json.record' }, 'Case written?'),
    iff(
      'Case written?',
      [25, 0],
      '$json.statusCode >= 200 && $json.statusCode < 300',
      'Done',
      'Connector failure?',
    ),
    noOp('Done', [26, -1]),
    iff(
      'Connector failure?',
      [26, 1],
      '$json.statusCode >= 500 && $runIndex === 0',
      'Notify owner',
      'Stop: case write failed',
    ),
    stop(
      'Stop: case write failed',
      [27, 2],
      "={{ 'Case write failed: POST /cases answered ' + $json.statusCode }}",
    ),
    http(
      'Notify owner',
      [27, 0],
      { method: 'POST', path: '/notify', body: ownerBody, full: false },
      'Health',
    ),
    http('Health', [28, 0], { method: 'GET', path: '/health' }, 'Healthy?'),
    iff(
      'Healthy?',
      [29, 0],
      "$json.statusCode === 200 && !!$json.body && $json.body.case_mode === 'healthy'",
      'Add record_retry',
      'Polls left?',
    ),
    iff(
      'Polls left?',
      [30, 1],
      `$runIndex < ${HEALTH_POLL_TRIES - 1}`,
      WAIT_POLL,
      'Stop: connector not recovered',
    ),
    wait(
      WAIT_POLL,
      [29, 2],
      { resume: 'timeInterval', amount: HEALTH_POLL_INTERVAL_SECONDS, unit: 'seconds' },
      'Health',
    ),
    stop(
      'Stop: connector not recovered',
      [31, 2],
      `Case connector not healthy after ${HEALTH_POLL_TRIES} polls of GET /health; the case was not written. The block (if any) stands.`,
    ),
    code('Add record_retry', [30, -1], 'add-record-retry.ts', 'Record'),
  ];
}

/** The export JSON of the response workflow, or of a variant of it. */
export function responseWorkflow(overrides?: Overrides): N8nExport {
  return buildWorkflow({
    id: RESPONSE_ID,
    name: RESPONSE_WORKFLOW,
    number: 1,
    nodes: applyOverrides(responseNodes(), overrides),
  });
}
