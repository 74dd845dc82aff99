/**
 * Nobody answers: "no block" means something only once the run has had its approval time limit, so the
 * checker sits the limit out before it judges (the driver's sitOutMs). A workflow that blocks when the
 * limit passes fails the Approve stage even when no later stage makes the check wait for the case.
 */
import { describe, expect, it } from 'vitest';
import { runCheck } from '../../app/check/run-check.js';
import type { GuideNode } from '../../app/workflow/guide/kinds.js';
import type { WorkflowOverrides } from '../../app/workflow/guide/state.js';
import { checkReference, hintsOf } from './check-helpers.js';

const APPROVED = "const approved = body.decision === 'approve' && name !== '';";

/** The Wait node's time-limit exit taken as an approval: Read decision says approved when not resumed. */
const blocksOnTimeout: WorkflowOverrides = {
  response: {
    'Read decision': (node: GuideNode): GuideNode => {
      const code = String(node.parameters.jsCode);
      if (!code.includes(APPROVED)) throw new Error('Read decision changed: this variant lost its place');
      const jsCode = code.replace(
        APPROVED,
        "const approved = !resumed || (body.decision === 'approve' && name !== '');",
      );
      return { ...node, parameters: { ...node.parameters, jsCode } };
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

  it('the guide’s workflow, which routes that exit to no action, passes it', async () => {
    const [options, output, hooks] = checkReference('approve');
    const report = await runCheck({ ...options, only: true }, output, hooks);
    expect(report.stages.map((s) => [s.stage, s.status])).toEqual([['approve', 'pass']]);
  }, 60_000);
});
