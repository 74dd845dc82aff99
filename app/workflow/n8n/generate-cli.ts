/**
 * Writes the two n8n workflows of docs/workflow-protocol.md as n8n export JSON into
 * docker/workflows/ (or the folder given as the argument):
 *   npx tsx app/workflow/n8n/generate-cli.ts [out-dir]
 * The JSON files are the artefact (import them with the n8n CLI or the editor); test/workflow checks
 * that the committed files are what this writes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKFLOW_FILES, WORKFLOW_OUT_DIR } from './workflows.js';

const out = process.argv[2] ?? WORKFLOW_OUT_DIR;
for (const [file, text] of Object.entries(WORKFLOW_FILES)) writeFileSync(join(out, file), text());
console.log(`wrote ${join(out, '*.json')}: ${Object.keys(WORKFLOW_FILES).join(', ')}`);
