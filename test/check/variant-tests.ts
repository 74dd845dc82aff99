import { describe, expect, it } from 'vitest';
import { runCheck } from '../../app/check/run-check.js';
import { REFERENCE_VARIANTS } from '../../app/check/variants.js';
import { checkReference, failedStages, hintsOf, withoutWantGot } from './check-helpers.js';
import { HINTS, MISMATCHES, type MistakeName } from './variant-hints.js';

/** Each test file takes a share of the mistakes, so vitest's forks run them side by side. */
export function variantTests(names: readonly MistakeName[]): void {
  describe('broken variants fail exactly the stage they break, with its hint and what was wanted and came', () => {
    for (const name of names) {
      const variant = REFERENCE_VARIANTS[name];
      it(`${name} (${variant.mistake}) fails ${variant.breaks} only`, async () => {
        const printed: string[] = [];
        const report = await runCheck(...checkReference('all', variant.reference, printed));
        expect(failedStages(report)).toEqual([variant.breaks]);
        expect(hintsOf(report, variant.breaks).join('\n')).toMatch(HINTS[name]);
        expect(withoutWantGot(report)).toEqual([]);
        // Under the hint, indented as it is: `hint: ...` then `mismatch: <field or request>: want .., got ..`.
        expect(printed.join('\n')).toMatch(
          new RegExp(`\\n {29}hint: [^\\n]+\\n {29}${MISMATCHES[name].source}`),
        );
        expect(report.passed).toBe(false);
      }, 60_000);
    }
  });
}
