/**
 * Every stage can fail: broken variants of the reference workflow (one node each) fail exactly the stage
 * they break, with its hint, and pass every other stage. Real HTTP on loopback: an in-process mock API,
 * the reference workflow host, the checker driving both. The first half of the mistakes, and a
 * half-built workflow, and the Webhook on a wrong path (the webhook stage).
 */
import { describe, expect, it } from 'vitest';
import { runCheck } from '../../app/check/run-check.js';
import { REFERENCE_VARIANTS } from '../../app/check/variants.js';
import { checkReference, failedStages, hintsOf } from './check-helpers.js';
import { HINTS } from './variant-hints.js';
import { variantTests } from './variant-tests.js';

variantTests(['no-environment-check', 'enrich-wrong-user', 'threshold-above-80', 'block-for-an-hour']);

describe('the webhook stage can fail: a Webhook on another path stops the check there', () => {
  const typo = REFERENCE_VARIANTS['webhook-path-typo'];

  it(`webhook-path-typo (${typo.mistake}) fails webhook only, in one line with its hint`, async () => {
    const printed: string[] = [];
    const [options, output, hooks] = checkReference('all', typo.reference, printed);
    const said: string[] = [];
    const report = await runCheck(options, { ...output, err: (line) => said.push(line) }, hooks);
    expect(typo.breaks).toBe('webhook');
    expect(failedStages(report)).toEqual(['webhook']);
    // Stopped: no other stage judged (each would fail only because the alert never arrived).
    expect(report.stages.map((s) => s.stage)).toEqual(['webhook']);
    expect(report.stopped).toMatchObject({ stage: 'webhook', path: 'suspicious-login' });
    expect(hintsOf(report, 'webhook').join('\n')).toMatch(HINTS['webhook-path-typo']);
    expect(report.results.find((r) => r.status === 'fail')?.detail).toBe(
      'POST /webhook/suspicious-login: want a workflow listening, got answered 404',
    );
    expect(said.filter((l) => l.startsWith('check: nothing listens'))).toHaveLength(1);
    expect(report.passed).toBe(false);
  }, 60_000);

  it('the control: the same check on the guide’s Webhook passes the webhook stage, not stopped', async () => {
    const report = await runCheck(...checkReference('webhook'));
    expect(report.stages.map((s) => [s.stage, s.status])).toEqual([['webhook', 'pass']]);
    expect(report.stopped).toBeNull();
  }, 60_000);
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
    expect(report.results.find((r) => r.status === 'fail')?.detail).toMatch(
      /^GET \/cases\/evt-chk-valid-79-\w+: want 1 request, got 0$/,
    );
  }, 60_000);
});
