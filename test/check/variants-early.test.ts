/**
 * Every stage can fail: broken variants of the reference workflow (one node each) fail exactly the stage
 * they break, with its hint, and pass every other stage. Real HTTP on loopback: an in-process mock API,
 * the reference workflow host, the checker driving both. The first half of the mistakes, and a
 * half-built workflow.
 */
import { describe, expect, it } from 'vitest';
import { runCheck } from '../../app/check/run-check.js';
import { REFERENCE_VARIANTS } from '../../app/check/variants.js';
import { checkReference, failedStages, hintsOf } from './check-helpers.js';
import { variantTests } from './variant-tests.js';

variantTests(['no-environment-check', 'enrich-wrong-user', 'threshold-above-80', 'block-for-an-hour']);

describe('a half-built workflow passes the stages it has', () => {
  const halfBuilt = REFERENCE_VARIANTS['built-up-to-enrich'];

  it('Webhook, Validate and Enrich built: STAGE=enrich passes', async () => {
    const report = await runCheck(...checkReference('enrich', halfBuilt.reference));
    expect(report.stages.map((s) => [s.stage, s.status])).toEqual([
      ['webhook', 'pass'],
      ['validate', 'pass'],
      ['enrich', 'pass'],
    ]);
    expect(report.passed).toBe(true);
  }, 60_000);

  it('STAGE=case-lookup fails at Case lookup, with the hint to connect it', async () => {
    const report = await runCheck(...checkReference('case-lookup', halfBuilt.reference));
    expect(failedStages(report)).toEqual(['case-lookup']);
    expect(hintsOf(report, 'case-lookup').join('\n')).toMatch(
      /no GET \/cases\/evt-chk-valid-79-\w+: connect Case lookup after Enrich/,
    );
    expect(report.results.find((r) => r.status === 'fail')?.detail).toMatch(
      /^GET \/cases\/evt-chk-valid-79-\w+: want 1 request, got 0$/,
    );
  }, 60_000);
});
