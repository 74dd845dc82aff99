/**
 * make e2e-check's verdict on one broken variant's check report (test/e2e/check.sh): exactly the stage
 * the variant breaks failed (app/check/variants.ts), with the hint the offline tests hold it to
 * (test/check/variant-hints.ts; a variant without one there needs only a hint). Exit 0, or 1 with one line.
 *   npx tsx test/e2e/variant-verdict.ts NAME REPORT
 */
import { readFileSync } from 'node:fs';
import { REFERENCE_VARIANTS } from '../../app/check/variants.js';
import { CheckReportSchema } from '../../app/check-report/report.js';
import { HINTS } from '../check/variant-hints.js';

const [name, reportPath] = process.argv.slice(2);
const variant = Object.entries(REFERENCE_VARIANTS).find(([n]) => n === name)?.[1];
if (variant === undefined || reportPath === undefined) {
  console.error(`usage: variant-verdict.ts ${Object.keys(REFERENCE_VARIANTS).join('|')} REPORT`);
  process.exit(2);
}
const report = CheckReportSchema.parse(JSON.parse(readFileSync(reportPath, 'utf8')));
const failed = report.stages.filter((s) => s.status === 'fail').map((s) => s.stage);
const hints = report.results
  .filter((r) => r.stage === variant.breaks && r.status === 'fail')
  .map((r) => r.hint ?? '');
const hint = Object.entries(HINTS).find(([n]) => n === name)?.[1];

const problem =
  report.stopped !== null && report.stopped.stage !== variant.breaks
    ? `the check stopped at ${report.stopped.stage} (${report.stopped.message}), not at ${variant.breaks}`
    : failed.length !== 1 || failed[0] !== variant.breaks
      ? `failed ${failed.join(', ') || 'no stage'}, not exactly ${variant.breaks}`
      : hints.every((h) => h === '')
        ? `${variant.breaks} failed without a hint`
        : hint !== undefined && !hint.test(hints.join('\n'))
          ? `${variant.breaks}'s hints do not match ${hint}: ${hints.join(' | ')}`
          : null;
if (problem !== null) {
  console.error(`${name}: ${problem}`);
  process.exit(1);
}
