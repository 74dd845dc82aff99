/**
 * A workflow cut up to a stage (app/workflow/n8n/partial.ts), and each starter of app/n8n/starter.ts (the
 * guide's workflow after the stage before), passes `check STAGE=<that stage>`, judged offline: the cut runs in the simulator of
 * test/workflow/n8n-sim.ts, every request it makes is answered by the real mock API in process
 * (createApp), and the checker's own scenarios and expectations (app/check/scenarios.ts) judge the mock
 * API's state, as the checker's driver does on a lab. What the offline run cannot see: n8n's execution
 * data (the Webhook stage's field check is unjudged, as without an API key) and real timing.
 */
import { describe, expect, it } from 'vitest';
import { STARTER_STAGES, starterWorkflows } from '../../app/n8n/starter.js';
import { APPROVAL_THRESHOLD } from '../../app/workflow/constants.js';
import { keepNodes, nodesUpTo, TRAINEE_STAGES, traineeWorkflows } from '../../app/workflow/n8n/partial.js';
import { responseWorkflow } from '../../app/workflow/n8n/response.js';
import type { N8nWorkflow } from '../workflow/checks.js';
import { checkOffline } from '../workflow/offline-check.js';

const NAMES = { response: 'My Suspicious Login Response', rollback: 'My Suspicious Login Rollback' };

describe('a workflow cut up to a stage passes that stage’s check (offline)', () => {
  it.each(TRAINEE_STAGES.map((s) => [s, s]))('the cut up to %s passes check STAGE=%s', async (stage) => {
    expect(await checkOffline(stage, traineeWorkflows(stage, NAMES))).toEqual([]);
  });

  it.each(STARTER_STAGES.map((s) => [s]))(
    'the starter for %s (the guide’s workflow) passes the check of the stage before it',
    async (stage) => {
      const [starter] = starterWorkflows(stage);
      const before = TRAINEE_STAGES[TRAINEE_STAGES.indexOf(stage) - 1];
      if (starter === undefined || before === undefined) throw new Error(`no starter for ${stage}`);
      // A starter's body is the export minus its id: the simulator's shape.
      const workflow = { id: '', ...starter.body } as unknown as N8nWorkflow;
      expect(await checkOffline(before, [workflow])).toEqual([]);
    },
  );
});

describe('the offline check fails a cut that stops short', () => {
  it('a Decide without the approval request fails check STAGE=decide, on the threshold alert', async () => {
    const short = ['Duplicate delivery?', 'Case exists?', 'Request approval'];
    const cut = keepNodes(
      responseWorkflow(),
      nodesUpTo('decide').filter((n) => !short.includes(n)),
    );
    const failed = await checkOffline('decide', [cut]);
    expect(failed).toEqual([
      expect.stringMatching(
        new RegExp(`^decide: alert with confidence ${APPROVAL_THRESHOLD}.*asked for no approval`),
      ),
    ]);
  });

  it('the cut up to decide fails check STAGE=approve: no Wait node takes the answer', async () => {
    const failed = await checkOffline('approve', traineeWorkflows('decide', NAMES));
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((f) => f.startsWith('approve: '))).toBe(true);
    expect(failed.join('\n')).toMatch(/the resume URL answered 404/);
  });

  it('the cut up to case-lookup fails check STAGE=decide: nothing recorded, no approval asked', async () => {
    const failed = await checkOffline('decide', traineeWorkflows('case-lookup', NAMES));
    expect(failed.join('\n')).toMatch(/no case was written/);
    expect(failed.join('\n')).toMatch(/asked for no approval/);
  });
});
