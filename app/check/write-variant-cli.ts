/**
 * Writes the n8n export JSON of a broken variant (or of the reference, with "reference") into a folder,
 * for the e2e check on the pinned n8n; prints the stage it breaks ("all" for the reference):
 *   npx tsx app/check/write-variant-cli.ts threshold-above-80 /tmp/variant
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportText } from '../workflow/export.js';
import { RESPONSE_ID, ROLLBACK_ID } from '../workflow/guide/exports.js';
import { guideResponseUpTo, guideRollback, type WorkflowOverrides } from '../workflow/guide/state.js';
import { REFERENCE_VARIANTS, type ReferenceVariantName } from './variants.js';

const [name, out] = process.argv.slice(2);
const known = Object.keys(REFERENCE_VARIANTS);
const chosen = known.find((k): k is ReferenceVariantName => k === name);
if (out === undefined || (name !== 'reference' && chosen === undefined)) {
  console.error(`usage: write-variant-cli.ts reference|${known.join('|')} OUT_DIR`);
  process.exit(2);
}
const overrides: WorkflowOverrides = chosen === undefined ? {} : REFERENCE_VARIANTS[chosen].reference;
mkdirSync(out, { recursive: true });
const files = {
  'suspicious-login-response.json': {
    ...guideResponseUpTo('rollback', undefined, overrides.response),
    id: RESPONSE_ID,
  },
  'suspicious-login-rollback.json': { ...guideRollback(undefined, overrides.rollback), id: ROLLBACK_ID },
};
for (const [file, workflow] of Object.entries(files)) writeFileSync(join(out, file), exportText(workflow));
console.log(`${chosen === undefined ? 'all' : REFERENCE_VARIANTS[chosen].breaks} ${join(out, '*.json')}`);
