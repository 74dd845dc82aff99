/**
 * What the compiler does not catch when a stage is added (app/stages/stages.ts's head comment lists every
 * place): each stage is judged by at least one expectation of the checker's scenarios, and the guide's
 * workflow has one step a stage, in the stages' order. Each check is shown to fail on a broken input.
 */
import { describe, expect, it } from 'vitest';
import { SCENARIOS } from '../../app/judges/scenarios.js';
import { STAGE_NAMES } from '../../app/stages/stages.js';
import { RESPONSE_STEPS } from '../../app/workflow/guide/response.js';

/** The stages that no scenario's expectation judges. */
function unjudged(
  stages: readonly string[],
  judged: readonly { expectations: readonly { stage: string }[] }[],
) {
  const seen = new Set(judged.flatMap((s) => s.expectations.map((e) => e.stage)));
  return stages.filter((stage) => !seen.has(stage));
}

/** Where the guide's steps differ from the stages, in order: one line, or none. */
function stepsDiffer(stages: readonly string[], steps: readonly { stage: string }[]): string[] {
  const got = steps.map((s) => s.stage).join(' ');
  return got === stages.join(' ') ? [] : [`the guide's steps are ${got}, the stages ${stages.join(' ')}`];
}

describe('a stage added everywhere the compiler cannot see', () => {
  it("every stage is judged by one of the checker's scenarios", () => {
    expect(unjudged(STAGE_NAMES, SCENARIOS)).toEqual([]);
  });

  it("the guide's workflow has one step a stage, in order", () => {
    expect(stepsDiffer(STAGE_NAMES, RESPONSE_STEPS)).toEqual([]);
  });

  it('fails on a stage no scenario judges, and on a stage the guide has no step for', () => {
    expect(unjudged([...STAGE_NAMES, 'triage'], SCENARIOS)).toEqual(['triage']);
    expect(stepsDiffer([...STAGE_NAMES, 'triage'], RESPONSE_STEPS)).toHaveLength(1);
    expect(stepsDiffer([...STAGE_NAMES].reverse(), RESPONSE_STEPS)).toHaveLength(1);
  });
});
