import { describe, expect, it } from 'vitest';
import { runCheck } from '../../app/check/run-check.js';
import { REFERENCE_VARIANTS } from '../../app/check/variants.js';
import { checkReference, failedStages, hintsOf } from './check-helpers.js';
import { HINTS, type MistakeName } from './variant-hints.js';

/** Each test file takes a share of the mistakes, so vitest's forks run them side by side. */
export function variantTests(names: readonly MistakeName[]): void {
  describe('broken variants fail exactly the stage they break, with its hint', () => {
    for (const name of names) {
      const variant = REFERENCE_VARIANTS[name];
      it(`${name} (${variant.mistake}) fails ${variant.breaks} only`, async () => {
        const report = await runCheck(...checkReference('all', variant.reference));
        expect(failedStages(report)).toEqual([variant.breaks]);
        expect(hintsOf(report, variant.breaks).join('\n')).toMatch(HINTS[name]);
        expect(report.passed).toBe(false);
      }, 60_000);
    }
  });
}
