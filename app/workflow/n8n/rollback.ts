/**
 * "Suspicious Login Rollback" on n8n: every node once, with its place in the editor and where its outputs
 * lead. A variant is `rollbackWorkflow({ 'Node name': override })`, as for the response workflow.
 */
import { ROLLBACK_WEBHOOK_PATH, ROLLBACK_WORKFLOW } from '../constants.js';
import {
  applyOverrides,
  buildWorkflow,
  code,
  http,
  iff,
  type N8nExport,
  type NodeSpec,
  type Overrides,
  settings,
  stop,
  webhook,
} from './build.js';

export const ROLLBACK_ID = 'SuspLoginRollbk1';

const EVENT = "$('Validate').first().json.event_id";
const IP = "$('Case lookup').first().json.body.source_ip";

export function rollbackNodes(): NodeSpec[] {
  return [
    webhook(ROLLBACK_WEBHOOK_PATH, [0, 0], 'Settings'),
    settings([1, 0], 'Validate', [
      { name: 'requested_at', value: '={{ new Date().toISOString() }}', type: 'string' },
    ]),
    code('Validate', [2, 0], 'validate-rollback.ts', 'Valid?'),
    iff('Valid?', [3, 0], '$json.valid === true', 'Case lookup', 'Stop: invalid rollback request'),
    stop('Stop: invalid rollback request', [4, 1], "={{ 'Rollback rejected: ' + $json.errors.join('; ') }}"),
    http(
      'Case lookup',
      [4, 0],
      { method: 'GET', path: `/cases/{{ encodeURIComponent(${EVENT}) }}` },
      'Case found?',
    ),
    iff(
      'Case found?',
      [5, 0],
      "$json.statusCode === 200 && !!$json.body && typeof $json.body.source_ip === 'string'",
      'Unblock',
      'Stop: no case',
    ),
    stop(
      'Stop: no case',
      [6, 1],
      `={{ 'Rollback failed: GET /cases/' + ${EVENT} + ' answered ' + $json.statusCode + ' (no case with a source_ip)' }}`,
    ),
    http(
      'Unblock',
      [6, 0],
      { method: 'DELETE', path: `/blocklist/{{ encodeURIComponent(${IP}) }}` },
      'Unblocked?',
    ),
    iff(
      'Unblocked?',
      [7, 0],
      "$json.statusCode === 200 || ($json.statusCode === 404 && !!$json.body && !!$json.body.error && $json.body.error.code === 'not_blocked')",
      'Verify absence',
      'Stop: unblock failed',
    ),
    stop(
      'Stop: unblock failed',
      [8, 1],
      "={{ 'Rollback failed: DELETE /blocklist answered ' + $json.statusCode }}",
    ),
    http(
      'Verify absence',
      [8, 0],
      { method: 'GET', path: `/blocklist/{{ encodeURIComponent(${IP}) }}` },
      'Absent?',
    ),
    iff(
      'Absent?',
      [9, 0],
      '$json.statusCode === 200 && !!$json.body && $json.body.blocked === false',
      'Build rollback record',
      'Stop: still blocked',
    ),
    stop(
      'Stop: still blocked',
      [10, 1],
      "={{ 'Rollback failed: GET /blocklist still answers ' + $json.statusCode + ' ' + JSON.stringify($json.body) }}",
    ),
    code('Build rollback record', [10, 0], 'build-rollback-record.ts', 'Record rollback'),
    http('Record rollback', [11, 0], { method: 'POST', path: '/cases', body: '$json.record', full: false }),
  ];
}

/** The export JSON of the rollback workflow, or of a variant of it. */
export function rollbackWorkflow(overrides?: Overrides): N8nExport {
  return buildWorkflow({
    id: ROLLBACK_ID,
    name: ROLLBACK_WORKFLOW,
    number: 2,
    nodes: applyOverrides(rollbackNodes(), overrides),
  });
}
