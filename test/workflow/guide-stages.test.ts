/**
 * The trainee guide's workflow (app/workflow/guide) passes the stage checker, judged offline as
 * test/workflow/offline-check.ts judges (the simulator, the real mock API in process, the checker's own
 * scenarios): the whole of it passes `check STAGE=all`, and the workflow as it stands after each stage of
 * the guide passes that stage's check, as the guide tells the trainee to check after each stage.
 */
import { describe, expect, it } from 'vitest';
import { STAGE_NAMES } from '../../app/stages/stages.js';
import type { N8nExport } from '../../app/workflow/export.js';
import { guideWorkflowsUpTo } from '../../app/workflow/guide/state.js';
import { checkOffline } from './offline-check.js';

const NAMES = { response: 'Suspicious Login Response', rollback: 'Suspicious Login Rollback' };
const guide = (stage: (typeof STAGE_NAMES)[number]): N8nExport[] => guideWorkflowsUpTo(stage, NAMES);

describe('the guide’s workflow passes the checker (offline)', () => {
  it('the whole guide passes check STAGE=all', async () => {
    expect(await checkOffline('all', guide('rollback'))).toEqual([]);
  });

  it.each(STAGE_NAMES.map((s) => [s, s]))('the guide up to %s passes check STAGE=%s', async (stage) => {
    expect(await checkOffline(stage, guide(stage))).toEqual([]);
  });

  it.each(STAGE_NAMES.slice(0, -1).map((s, i) => [s, STAGE_NAMES[i + 1]]))(
    'control: the guide up to %s fails check STAGE=%s (the next stage is still to build)',
    async (stage, next) => {
      if (next === undefined) throw new Error('no next stage');
      const failed = await checkOffline(next, guide(stage));
      expect(failed.length).toBeGreaterThan(0);
      expect(failed.every((f) => f.startsWith(`${next}: `))).toBe(true);
    },
  );
});
