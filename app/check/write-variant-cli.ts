/**
 * Writes the n8n export JSON of a broken variant (or of the reference, with "reference") into a folder,
 * for the e2e check on the pinned n8n:
 *   npx tsx app/check/write-variant-cli.ts threshold-above-80 /tmp/variant
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { N8N_VARIANTS, variantExports } from './n8n-variants.js';
import { REFERENCE_VARIANTS, type ReferenceVariantName } from './variants.js';

const [name, out] = process.argv.slice(2);
const known = Object.keys(N8N_VARIANTS);
const chosen = known.find((k): k is ReferenceVariantName => k === name);
if (out === undefined || (name !== 'reference' && chosen === undefined)) {
  console.error(`usage: write-variant-cli.ts reference|${known.join('|')} OUT_DIR`);
  process.exit(2);
}
mkdirSync(out, { recursive: true });
for (const [file, text] of Object.entries(variantExports(chosen ?? null)))
  writeFileSync(join(out, file), text);
console.log(`${chosen === undefined ? 'all' : REFERENCE_VARIANTS[chosen].breaks} ${join(out, '*.json')}`);
