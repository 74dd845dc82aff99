/**
 * Every stage can fail: broken variants of the reference workflow (one node each) fail exactly the stage
 * they break, with its hint, and pass every other stage. Real HTTP on loopback: an in-process mock API,
 * the reference workflow host, the checker driving both.
 */
import { describe, expect, it } from 'vitest';
import { runCheck } from '../../app/acceptance/check/run-check.js';
import { REFERENCE_VARIANTS, type ReferenceVariantName } from '../../app/acceptance/check/variants.js';
import { checkReference, failedStages, hintsOf } from './check-helpers.js';

/** The hint each mistake must produce, in the trainee's terms. */
const HINTS: Record<Exclude<ReferenceVariantName, 'built-up-to-enrich'>, RegExp> = {
  'no-environment-check':
    /a run with environment=production still called GET \/identity\/lab-admin: stop the run in Validate when environment is not training/,
  'enrich-wrong-user':
    /an alert for user nobody-\w+ called GET \/identity\/lab-admin .*: Enrich must use the alert's user field/,
  'threshold-above-80': /confidence 80 asked for no approval: Decide must use >= 80/,
  'block-before-approval':
    /POST \/blocklist was sent before the approver answered: move Block after the Wait node/,
  'second-case-on-duplicate': /there are 2 cases \(other event_id evt-chk-duplicate-\w+-update\)/,
  'block-repeated-after-connector-failure':
    /after the case write failed, POST \/blocklist was sent again: when Record fails, resume only Record/,
  'rollback-without-verifying-absence':
    /after DELETE \/blocklist\/203\.0\.113\.66 nothing checked the address: ask GET \/blocklist\/203\.0\.113\.66/,
};

describe('broken variants fail exactly the stage they break, with its hint', () => {
  for (const [name, hint] of Object.entries(HINTS)) {
    const variant = REFERENCE_VARIANTS[name as keyof typeof HINTS];
    it(`${name} (${variant.mistake}) fails ${variant.breaks} only`, async () => {
      const report = await runCheck(...checkReference('all', variant.reference));
      expect(failedStages(report)).toEqual([variant.breaks]);
      expect(hintsOf(report, variant.breaks).join('\n')).toMatch(hint);
      expect(report.passed).toBe(false);
    }, 60_000);
  }
});

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
  }, 60_000);
});
