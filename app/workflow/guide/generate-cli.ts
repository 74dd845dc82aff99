/**
 * Writes the guide's workflows as n8n export files into docker/workflows/ (or the folder given):
 *   npx tsx app/workflow/guide/generate-cli.ts [out-dir]
 * test/workflow/guide-exports.test.ts fails when the committed files are not what this writes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GUIDE_FILES } from './exports.js';

const out =
  process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docker', 'workflows');
for (const [file, text] of Object.entries(GUIDE_FILES)) {
  mkdirSync(dirname(join(out, file)), { recursive: true });
  writeFileSync(join(out, file), text());
}
console.log(`wrote ${Object.keys(GUIDE_FILES).length} files to ${out}`);
