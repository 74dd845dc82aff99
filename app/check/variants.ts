/**
 * Broken copies of the reference workflow (the guide's), each a small override of its nodes, for proving
 * that every stage of the checker can fail, and fails with its hint: offline on the simulator
 * (TARGET=reference) and on the pinned n8n (test/e2e/check.sh writes them with write-variant-cli.ts).
 * Also useful to a trainer: `check` run on a variant shows what a trainee's typical mistake looks like.
 */

import type { StageName } from '../stages/stages.js';
import { APPROVAL_THRESHOLD, RESPONSE_WEBHOOK_PATH } from '../workflow/constants.js';
import type { GuideNode } from '../workflow/guide/kinds.js';
import type { WorkflowOverrides } from '../workflow/guide/state.js';

export interface Variant {
  /** What the trainee got wrong, in their terms. */
  mistake: string;
  /** The one stage this mistake must fail (every other stage passes). */
  breaks: StageName;
  /** The nodes of the reference it changes. */
  reference: WorkflowOverrides;
}

/** `text` with `from` replaced by `to`; throws when `text` has no `from` (the reference changed). */
function replaced(text: unknown, from: string, to: string): string {
  const s = String(text);
  if (!s.includes(from)) throw new Error(`a variant's edit lost its place: no ${JSON.stringify(from)}`);
  return s.replace(from, to);
}

/** The node with `from` replaced by `to` in its parameter `key`. */
const edit =
  (key: string, from: string, to: string) =>
  (node: GuideNode): GuideNode => ({
    ...node,
    parameters: { ...node.parameters, [key]: replaced(node.parameters[key], from, to) },
  });

/** The node's connections from an output re-pointed. */
const rewire =
  (output: GuideNode['next'][number]['output'], to: string) =>
  (node: GuideNode): GuideNode => ({
    ...node,
    next: [...node.next.filter((l) => l.output !== output), { output, to }],
  });

export const REFERENCE_VARIANTS = {
  'webhook-path-typo': {
    mistake: `the Webhook listens on ${RESPONSE_WEBHOOK_PATH}s, not on the path the alerts are sent to`,
    breaks: 'webhook',
    reference: {
      response: { Webhook: edit('path', RESPONSE_WEBHOOK_PATH, `${RESPONSE_WEBHOOK_PATH}s`) },
    },
  },
  'no-environment-check': {
    mistake: 'Validate does not look at environment',
    breaks: 'validate',
    reference: {
      response: {
        Validate: edit(
          'jsCode',
          `else if (field === 'environment' && value !== 'training') errors.push('environment must be "training"');\n`,
          '',
        ),
      },
    },
  },
  'enrich-wrong-user': {
    mistake: 'Enrich always asks for lab-admin instead of the alert’s user',
    breaks: 'enrich',
    reference: {
      response: {
        Enrich: edit('url', "/identity/{{ $('Webhook').first().json.body.user }}", '/identity/lab-admin'),
      },
    },
  },
  [`threshold-above-${APPROVAL_THRESHOLD}`]: {
    mistake: `Decide compares confidence > ${APPROVAL_THRESHOLD} instead of >= ${APPROVAL_THRESHOLD}`,
    breaks: 'decide',
    reference: {
      response: {
        [`Decide (confidence >= ${APPROVAL_THRESHOLD})`]: (node) => {
          const changed = structuredClone(node);
          const conditions = changed.parameters.conditions as { conditions: { operator: object }[] };
          for (const c of conditions.conditions) c.operator = { type: 'number', operation: 'gt' };
          return changed;
        },
      },
    },
  },
  'block-before-approval': {
    mistake: 'Block runs before the approval is asked, whatever the approver says',
    breaks: 'approve',
    reference: {
      response: {
        'Duplicate delivery?': rewire('false', 'Block'),
        Block: rewire('main', 'Request approval'),
        'Approved?': rewire('true', 'Verify block'),
      },
    },
  },
  'block-for-an-hour': {
    mistake: 'Block sends expires_minutes 60 instead of 10',
    breaks: 'block',
    reference: { response: { Block: edit('jsonBody', 'expires_minutes: 10', 'expires_minutes: 60') } },
  },
  'record-without-approver': {
    mistake: 'Record leaves the approver out of the case',
    breaks: 'record',
    reference: {
      response: {
        'Build record': edit(
          'jsCode',
          '...$input.first().json.outcome,\n',
          '...$input.first().json.outcome,\n  approver: null,\n',
        ),
      },
    },
  },
  'second-case-on-duplicate': {
    mistake: 'the update branch writes a case under a new key',
    breaks: 'idempotency',
    reference: {
      response: {
        'Build record': edit(
          'jsCode',
          'return [{ json: { record: record } }];',
          "if (record.case_action === 'update') record.event_id = alert.event_id + '-update';\nreturn [{ json: { record: record } }];",
        ),
      },
    },
  },
  'block-repeated-after-connector-failure': {
    mistake: 'a failed case write makes the run go back to Block',
    breaks: 'connector-failure',
    reference: { response: { 'Notify owner': rewire('main', 'Block') } },
  },
  'rollback-without-verifying-absence': {
    mistake: 'the rollback records success without checking that the address is gone',
    breaks: 'rollback',
    reference: { rollback: { Unblock: rewire('main', 'Build rollback record') } },
  },
  'built-up-to-enrich': {
    mistake: 'nothing after Enrich is connected yet (a half-built workflow)',
    breaks: 'case-lookup',
    reference: {
      response: {
        'Identity ok?': (node) => ({ ...node, next: node.next.filter((l) => l.output !== 'true') }),
      },
    },
  },
} satisfies Record<string, Variant>;
export type ReferenceVariantName = keyof typeof REFERENCE_VARIANTS;
