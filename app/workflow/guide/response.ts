/**
 * "Suspicious Login Response" as docs/trainee-guide.md builds it, stage by stage: the nodes each stage's
 * table adds (in its order), the connections the guide declares with them, and what a stage changes or
 * deletes of an earlier one. The guide's words are the facts of ./kinds.ts; a test holds them equal.
 */

import type { StageName } from '../../stages/stages.js';
import {
  APPROVAL_THRESHOLD,
  HEALTH_POLL_INTERVAL_SECONDS,
  HEALTH_POLL_TRIES,
  RESPONSE_WEBHOOK_PATH,
} from '../constants.js';
import {
  BELOW_THRESHOLD,
  BUILD_RECORD,
  CHECK_IDENTITY,
  CHECK_VERIFICATION,
  NO_ACTION,
  NOTIFY_OWNER,
  NOTIFY_VALIDATION_ERROR,
  READ_DECISION,
  REQUEST_APPROVAL,
  SELECT_CASE_ACTION,
  VALIDATE,
} from './code.js';
import {
  code,
  type GuideNode,
  http,
  iff,
  type OutputLabel,
  stop,
  waitForWebhook,
  waitSeconds,
  webhook,
} from './kinds.js';

export interface StageStep {
  stage: StageName;
  /** The nodes the stage's table adds, in its order. */
  nodes: GuideNode[];
  /** Connections the stage deletes, and the sentence of the guide that says so. */
  deletes?: { from: string; output: OutputLabel; to: string; fact: string }[];
  /** Settings the stage changes on an earlier node (n8n's node-level fields), and the guide's words. */
  changes?: { node: string; set: { onError: 'continueErrorOutput' }; fact: string }[];
}

const API = '{{ $env.MOCK_API_URL }}';
const ALERT = "$('Webhook').first().json.body";
export const DECIDE = `Decide (confidence >= ${APPROVAL_THRESHOLD})`;
export const WAIT_POLL = `Wait ${HEALTH_POLL_INTERVAL_SECONDS} s`;

export const RESPONSE_STEPS: StageStep[] = [
  { stage: 'webhook', nodes: [webhook(RESPONSE_WEBHOOK_PATH, { position: [0, 0] })] },
  {
    stage: 'validate',
    nodes: [
      code('Validate', VALIDATE, {
        position: [1, 0],
        after: { from: 'Webhook', output: 'main' },
        next: [{ output: 'main', to: 'Valid?' }],
      }),
      iff(
        'Valid?',
        { value1: '{{ $json.valid }}', operator: 'Boolean → is true' },
        {
          position: [2, 0],
          next: [
            { output: 'true', to: 'Enrich' },
            { output: 'false', to: 'Notify validation error' },
          ],
        },
      ),
      http(
        'Notify validation error',
        { method: 'POST', url: `${API}/notify`, json: NOTIFY_VALIDATION_ERROR },
        { position: [3, -1.5], next: [{ output: 'main', to: 'Stop: alert rejected' }] },
      ),
      stop('Stop: alert rejected', "{{ 'Alert rejected: ' + $json.message }}", { position: [4, -1.5] }),
    ],
  },
  {
    stage: 'enrich',
    nodes: [
      http(
        'Enrich',
        { method: 'GET', url: `${API}/identity/{{ ${ALERT}.user }}`, statusAsData: true },
        { position: [3, 0], next: [{ output: 'main', to: 'Check identity' }] },
      ),
      code('Check identity', CHECK_IDENTITY, {
        position: [4, 0],
        next: [{ output: 'main', to: 'Identity ok?' }],
      }),
      iff(
        'Identity ok?',
        { value1: '{{ $json.valid }}', operator: 'Boolean → is true' },
        {
          position: [5, 0],
          next: [
            { output: 'true', to: 'Case lookup' },
            { output: 'false', to: 'Notify validation error' },
          ],
        },
      ),
    ],
  },
  {
    stage: 'case-lookup',
    nodes: [
      http(
        'Case lookup',
        { method: 'GET', url: `${API}/cases/{{ ${ALERT}.event_id }}`, statusAsData: true },
        { position: [6, 0], next: [{ output: 'main', to: 'Select case action' }] },
      ),
      code('Select case action', SELECT_CASE_ACTION, {
        position: [7, 0],
        next: [{ output: 'main', to: DECIDE }],
      }),
    ],
  },
  {
    stage: 'decide',
    nodes: [
      iff(
        DECIDE,
        {
          value1: `{{ ${ALERT}.confidence }}`,
          operator: 'Number → is greater than or equal to',
          value2: APPROVAL_THRESHOLD,
        },
        {
          position: [8, 0],
          next: [
            { output: 'true', to: 'Request approval' },
            { output: 'false', to: 'Below threshold' },
          ],
        },
      ),
      code('Below threshold', BELOW_THRESHOLD, {
        position: [9, -1],
        next: [{ output: 'main', to: 'Build record' }],
      }),
      code('Build record', BUILD_RECORD, { position: [17, 0], next: [{ output: 'main', to: 'Record' }] }),
      http(
        'Record',
        {
          method: 'POST',
          url: `${API}/cases`,
          json: "{{ JSON.stringify($('Build record').first().json.record) }}",
          inline: true,
        },
        { position: [18, 0] },
      ),
      http(
        'Request approval',
        { method: 'POST', url: `${API}/notify`, json: REQUEST_APPROVAL },
        { position: [10, 2] },
      ),
    ],
  },
  {
    stage: 'approve',
    nodes: [
      waitForWebhook('Wait for approval', '{{ Number($env.APPROVAL_TIMEOUT_SECONDS) }}', {
        position: [11, 2],
        after: { from: 'Request approval', output: 'main' },
        next: [{ output: 'main', to: 'Read decision' }],
      }),
      code('Read decision', READ_DECISION, {
        position: [12, 2],
        next: [{ output: 'main', to: 'Approved?' }],
      }),
      iff(
        'Approved?',
        { value1: '{{ $json.approved }}', operator: 'Boolean → is true' },
        {
          position: [13, 2],
          next: [
            { output: 'true', to: 'Block' },
            { output: 'false', to: 'No action' },
          ],
        },
      ),
      code('No action', NO_ACTION, { position: [14, 1], next: [{ output: 'main', to: 'Build record' }] }),
    ],
  },
  {
    stage: 'block',
    nodes: [
      http(
        'Block',
        {
          method: 'POST',
          url: `${API}/blocklist`,
          json: `{{ JSON.stringify({ ip: ${ALERT}.source_ip, event_id: ${ALERT}.event_id, expires_minutes: 10 }) }}`,
          inline: true,
        },
        { position: [14, 3], next: [{ output: 'main', to: 'Verify block' }] },
      ),
      http(
        'Verify block',
        { method: 'GET', url: `${API}/blocklist/{{ ${ALERT}.source_ip }}` },
        { position: [15, 3] },
      ),
    ],
  },
  {
    stage: 'record',
    nodes: [
      code('Check verification', CHECK_VERIFICATION, {
        position: [16, 3],
        after: { from: 'Verify block', output: 'main' },
        next: [{ output: 'main', to: 'Build record' }],
      }),
    ],
  },
  {
    stage: 'idempotency',
    deletes: [
      {
        from: DECIDE,
        output: 'true',
        to: 'Request approval',
        fact: `Delete the connection **${DECIDE}** *true* → **Request approval**`,
      },
    ],
    nodes: [
      iff(
        'Duplicate delivery?',
        { value1: "{{ $('Select case action').first().json.duplicate }}", operator: 'Boolean → is true' },
        {
          position: [9, 1],
          after: { from: DECIDE, output: 'true' },
          next: [
            { output: 'true', to: 'Keep first outcome' },
            { output: 'false', to: 'Request approval' },
          ],
        },
      ),
      code(
        'Keep first outcome',
        "return [{ json: { outcome: { result: 'duplicate_delivery', final_action: 'blocked' } } }];",
        { position: [10, 0], next: [{ output: 'main', to: 'Build record' }] },
        true,
      ),
    ],
  },
  {
    stage: 'connector-failure',
    changes: [
      {
        node: 'Record',
        set: { onError: 'continueErrorOutput' },
        fact: '*On Error* → *Continue (using error output)*',
      },
    ],
    nodes: [
      iff(
        'Connector failure?',
        { value1: '{{ $runIndex }}', operator: 'Number → is equal to', value2: 0 },
        {
          position: [19, 1],
          after: { from: 'Record', output: 'Error' },
          next: [
            { output: 'true', to: 'Notify owner' },
            { output: 'false', to: 'Stop: case write failed' },
          ],
        },
      ),
      stop('Stop: case write failed', "{{ 'Case write failed twice: ' + JSON.stringify($json.error) }}", {
        position: [20, 2.5],
      }),
      http(
        'Notify owner',
        { method: 'POST', url: `${API}/notify`, json: NOTIFY_OWNER },
        { position: [20, 1], next: [{ output: 'main', to: 'Health' }] },
      ),
      http(
        'Health',
        { method: 'GET', url: `${API}/health` },
        { position: [21, 1], next: [{ output: 'main', to: 'Healthy?' }] },
      ),
      iff(
        'Healthy?',
        { value1: '{{ $json.case_mode }}', operator: 'String → is equal to', value2: 'healthy' },
        {
          position: [22, 1],
          next: [
            { output: 'true', to: 'Record' },
            { output: 'false', to: 'Polls left?' },
          ],
        },
      ),
      iff(
        'Polls left?',
        { value1: '{{ $runIndex }}', operator: 'Number → is less than', value2: HEALTH_POLL_TRIES - 1 },
        {
          position: [23, 2],
          next: [
            { output: 'true', to: WAIT_POLL },
            { output: 'false', to: 'Stop: connector not recovered' },
          ],
        },
      ),
      waitSeconds(WAIT_POLL, HEALTH_POLL_INTERVAL_SECONDS, {
        position: [22, 3],
        next: [{ output: 'main', to: 'Health' }],
      }),
      stop(
        'Stop: connector not recovered',
        `The case system did not recover within ${HEALTH_POLL_TRIES} polls of GET /health; the case was not written. The block stands.`,
        { position: [24, 3] },
      ),
    ],
  },
  { stage: 'rollback', nodes: [] },
];

/** The stage whose table adds the response workflow's node `name`; null for a name the guide has not. */
export function stageOfNode(name: string): StageName | null {
  return RESPONSE_STEPS.find((step) => step.nodes.some((n) => n.name === name))?.stage ?? null;
}
