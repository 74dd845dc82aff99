/**
 * A stimulus's run found already ended while the driver waited is not looked up again after the wait: its
 * data then was its last (n8n's look-up lists executions with their data, twice: it costs a trainee time
 * per stimulus). A run found still going is looked up again, for its final data.
 */
import { describe, expect, it } from 'vitest';
import { runCheck } from '../../app/check/run-check.js';
import { hasEnded, type RunLookup, type RunSource } from '../../app/runs/run.js';
import { startReferenceTarget } from '../../app/targets/targets.js';
import { checkReference } from './check-helpers.js';

describe('the run look-up after the wait', () => {
  it('asks no more of a run found ended, and the verdicts stay', async () => {
    const [options, output, hooks] = checkReference('enrich');
    /** Per stimulus (path and time sent): each find's answer, ended or not, in order. */
    const finds = new Map<string, boolean[]>();
    const report = await runCheck({ ...options, only: true }, output, {
      ...hooks,
      startReference: async (settings) => {
        const target = await startReferenceTarget(settings);
        const runs = target.runs as RunSource;
        return {
          ...target,
          runs: {
            ...runs,
            find: async (query): Promise<RunLookup> => {
              // Shown only once it has ended, as n8n shows a run that is over by its first look.
              const found = await runs.find(query);
              const ended = found.kind === 'found' && hasEnded(found.run.status);
              const key = `${query.path} ${query.sentAt.toISOString()}`;
              finds.set(key, [...(finds.get(key) ?? []), ended]);
              return ended ? found : { kind: 'none' };
            },
          },
        };
      },
    });
    expect(report.stages.map((s) => [s.stage, s.status])).toEqual([['enrich', 'pass']]);
    const answers = [...finds.values()];
    expect(answers.length).toBe(2);
    // Each stimulus's run was found (ended) once, and not looked up again.
    for (const seen of answers) expect(seen.filter((ended) => ended)).toEqual([true]);
  }, 30_000);
});
