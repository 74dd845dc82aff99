/**
 * Each starter of app/n8n/starter.ts (the guide's workflow after the stage before) passes `check
 * STAGE=<that stage before>`, judged offline (test/workflow/offline-check.ts: the simulator, the real mock
 * API in process, the checker's own scenarios and expectations); and the offline check fails a workflow
 * cut short of a stage, with the stage's own words. (test/workflow/guide-stages.test.ts holds the guide's
 * workflow after every stage to that stage's check.)
 */
import { describe, expect, it } from 'vitest';
import { STARTER_STAGES, starterWorkflows } from '../../app/n8n/starter.js';
import { STAGE_NAMES } from '../../app/stages/stages.js';
import { APPROVAL_THRESHOLD } from '../../app/workflow/constants.js';
import type { N8nExport } from '../../app/workflow/export.js';
import { DECIDE } from '../../app/workflow/guide/response.js';
import { guideResponseUpTo, guideWorkflowsUpTo } from '../../app/workflow/guide/state.js';
import { N8nExportSchema } from '../workflow/checks.js';
import { checkOffline } from '../workflow/offline-check.js';

const NAMES = { response: 'My Suspicious Login Response', rollback: 'My Suspicious Login Rollback' };

/** A starter as n8n stores it once saved: its body, unpublished, with no id of its own yet. */
function saved(stage: (typeof STARTER_STAGES)[number]): N8nExport {
  const [starter, ...more] = starterWorkflows(stage);
  if (starter === undefined || more.length > 0) throw new Error(`not one starter for ${stage}`);
  return N8nExportSchema.parse({ id: '', active: false, pinData: {}, meta: {}, tags: [], ...starter.body });
}

describe('a starter passes the check of the stage it starts after (offline)', () => {
  it.each(STARTER_STAGES.map((s) => [s, STAGE_NAMES[STAGE_NAMES.indexOf(s) - 1]]))(
    'the starter for %s passes check STAGE=%s',
    async (stage, before) => {
      if (before === undefined) throw new Error(`no stage before ${stage}`);
      expect(await checkOffline(before, [saved(stage)])).toEqual([]);
    },
  );
});

describe('the offline check fails a workflow cut short', () => {
  it('a Decide whose true output asks nothing fails check STAGE=decide, on the threshold alert only', async () => {
    const cut = guideResponseUpTo('decide', NAMES.response, {
      [DECIDE]: { next: [{ output: 'false', to: 'Below threshold' }] },
    });
    expect(await checkOffline('decide', [cut])).toEqual([
      expect.stringMatching(
        new RegExp(`^decide: alert with confidence ${APPROVAL_THRESHOLD}.*asked for no approval`),
      ),
    ]);
  });

  it('the guide up to decide fails check STAGE=approve: no Wait node takes the answer', async () => {
    const failed = await checkOffline('approve', guideWorkflowsUpTo('decide', NAMES));
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((f) => f.startsWith('approve: '))).toBe(true);
    expect(failed.join('\n')).toMatch(/the resume URL answered 404/);
  });

  it('the guide up to case-lookup fails check STAGE=decide: nothing recorded, no approval asked', async () => {
    const failed = await checkOffline('decide', guideWorkflowsUpTo('case-lookup', NAMES));
    expect(failed.join('\n')).toMatch(/no case was written/);
    expect(failed.join('\n')).toMatch(/asked for no approval/);
  });
});
