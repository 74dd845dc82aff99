/**
 * Nobody answers: "no block" means something only once the run has had its approval time limit, so the
 * checker sits the limit out before it judges (the driver's sitOutMs). A workflow that blocks when the
 * limit passes fails the Approve stage even when no later stage makes the check wait for the case.
 */
import { describe, expect, it } from 'vitest';
import { runCheck } from '../../app/check/run-check.js';
import { REFERENCE_NODES } from '../../app/targets/reference-workflow.js';
import type { WorkflowVariant } from '../../app/targets/workflow-host.js';
import { blockRequest } from '../../app/workflow/decisions.js';
import { checkReference, hintsOf } from './check-helpers.js';

/** The time-limit exit of the Wait node routed to Block. */
const blocksOnTimeout: WorkflowVariant = {
  response: {
    async approve(ctx, alert) {
      const reading = await REFERENCE_NODES.approve(ctx, alert);
      if (!reading.resumed) await ctx.api.request('POST', '/blocklist', blockRequest(alert));
      return reading;
    },
  },
};

describe('a silent approver', () => {
  it('STAGE=approve --only waits out the limit and fails a block sent when it passes', async () => {
    const [options, output, hooks] = checkReference('approve', blocksOnTimeout);
    const report = await runCheck({ ...options, only: true }, output, hooks);
    expect(report.stages.map((s) => [s.stage, s.status])).toEqual([['approve', 'fail']]);
    expect(hintsOf(report, 'approve')).toEqual([
      "when nobody answered, a blocklist request was still sent: route the Wait node's time-limit exit to no action",
    ]);
  }, 60_000);
});
