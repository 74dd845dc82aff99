/**
 * Broken copies of the reference workflow, each a small override of one node, for proving that every
 * stage of the checker can fail, and fails with its hint, on the reference target (node functions; a few
 * are also n8n export JSON: n8n-variants.ts).
 * Also useful to a trainer: `check` run on a variant shows what a trainee's typical mistake looks like.
 */

import type { StageName } from '../stages/stages.js';
import { REFERENCE_NODES, StopRun } from '../targets/reference-workflow.js';
import type { WorkflowVariant } from '../targets/workflow-host.js';
import { APPROVAL_THRESHOLD } from '../workflow/constants.js';
import {
  blockRequest,
  isJsonObject,
  validateAlert,
  verifiedBlockOutcome,
  withRecordRetry,
} from '../workflow/decisions.js';
import { LAB_USER } from '../workflow/scenario.js';

export interface Variant {
  /** What the trainee got wrong, in their terms. */
  mistake: string;
  /** The one stage this mistake must fail (every other stage passes). */
  breaks: StageName;
  reference: WorkflowVariant;
}

export const REFERENCE_VARIANTS = {
  'no-environment-check': {
    mistake: 'Validate does not look at environment',
    breaks: 'validate',
    reference: {
      response: {
        validate: (payload) =>
          validateAlert(isJsonObject(payload) ? { ...payload, environment: 'training' } : payload),
      },
    },
  },
  'enrich-wrong-user': {
    mistake: 'Enrich always asks for lab-admin instead of the alert’s user',
    breaks: 'enrich',
    reference: {
      response: { enrich: (ctx, alert) => REFERENCE_NODES.enrich(ctx, { ...alert, user: LAB_USER }) },
    },
  },
  [`threshold-above-${APPROVAL_THRESHOLD}`]: {
    mistake: `Decide compares confidence > ${APPROVAL_THRESHOLD} instead of >= ${APPROVAL_THRESHOLD}`,
    breaks: 'decide',
    reference: {
      response: {
        decide: (ctx, alert, selection) =>
          REFERENCE_NODES.decide(
            ctx,
            alert.confidence === APPROVAL_THRESHOLD
              ? { ...alert, confidence: APPROVAL_THRESHOLD - 1 }
              : alert,
            selection,
          ),
      },
    },
  },
  'block-before-approval': {
    mistake: 'Block runs before the approval is asked, whatever the approver says',
    breaks: 'approve',
    reference: {
      response: {
        async approve(ctx, alert) {
          await ctx.api.request('POST', '/blocklist', blockRequest(alert));
          return REFERENCE_NODES.approve(ctx, alert);
        },
        // The block already went out; the Block node only checks it, as a reordered workflow would.
        async block(ctx, alert, approval) {
          const lookup = await ctx.api.request('GET', `/blocklist/${encodeURIComponent(alert.source_ip)}`);
          return verifiedBlockOutcome(
            lookup.status,
            lookup.body,
            alert,
            approval.approver,
            ctx.now().toISOString(),
          );
        },
      },
    },
  },
  'block-for-an-hour': {
    mistake: 'Block sends expires_minutes 60 instead of 10',
    breaks: 'block',
    reference: {
      response: {
        async block(ctx, alert, approval) {
          await ctx.api.request('POST', '/blocklist', { ...blockRequest(alert), expires_minutes: 60 });
          const lookup = await ctx.api.request('GET', `/blocklist/${encodeURIComponent(alert.source_ip)}`);
          return verifiedBlockOutcome(
            lookup.status,
            lookup.body,
            alert,
            approval.approver,
            ctx.now().toISOString(),
          );
        },
      },
    },
  },
  'record-without-approver': {
    mistake: 'Record leaves the approver out of the case',
    breaks: 'record',
    reference: {
      response: {
        buildRecord: (...args) => ({ ...REFERENCE_NODES.buildRecord(...args), approver: null }),
      },
    },
  },
  'second-case-on-duplicate': {
    mistake: 'the update branch writes a case under a new key',
    breaks: 'idempotency',
    reference: {
      response: {
        record: (ctx, alert, record) =>
          REFERENCE_NODES.record(
            ctx,
            alert,
            record.case_action === 'update' ? { ...record, event_id: `${alert.event_id}-update` } : record,
          ),
      },
    },
  },
  'block-repeated-after-connector-failure': {
    mistake: 'a failed case write makes the run go back to Block',
    breaks: 'connector-failure',
    reference: {
      response: {
        async record(ctx, alert, record) {
          const first = await ctx.api.request('POST', '/cases', record);
          if (first.status < 500) return;
          await ctx.api.request('POST', '/notify', {
            channel: 'owner',
            recipient: 'case-owner',
            subject: `Case write failed: ${alert.event_id}`,
            event_id: alert.event_id,
          });
          await ctx.api.request('POST', '/blocklist', blockRequest(alert));
          await ctx.api.request('POST', '/cases', withRecordRetry(record));
        },
      },
    },
  },
  'rollback-without-verifying-absence': {
    mistake: 'the rollback records success without checking that the address is gone',
    breaks: 'rollback',
    reference: { rollback: { verifyAbsence: async () => {} } },
  },
  'built-up-to-enrich': {
    mistake: 'nothing after Enrich is connected yet (a half-built workflow)',
    breaks: 'case-lookup',
    reference: {
      response: {
        lookupCase: async () => {
          throw new StopRun('not built yet');
        },
      },
    },
  },
} satisfies Record<string, Variant>;
export type ReferenceVariantName = keyof typeof REFERENCE_VARIANTS;
