/**
 * The lab's n8n environment (compose.yaml's `x-n8n-environment`) for one n8n on SQLite: prints KEY=VALUE
 * lines for test/editor/run.sh, without what only the lab's Postgres needs; `${VAR:-default}`
 * takes its default. The caller sets the rest (port, folder, URLs, key, N8N_DISABLED_MODULES).
 *   npx tsx test/editor/lab-env.ts [compose.yaml]
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';

/** Postgres: the lab's, not a single SQLite instance's. */
const NOT_FOR_SQLITE = /^(DB_TYPE|DB_POSTGRESDB_\w+)$/;

const ComposeSchema = z.looseObject({
  'x-n8n-environment': z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
});

const file = process.argv[2] ?? 'compose.yaml';
const compose = ComposeSchema.parse(parse(readFileSync(file, 'utf8')));
for (const [key, raw] of Object.entries(compose['x-n8n-environment'])) {
  if (NOT_FOR_SQLITE.test(key)) continue;
  const value = String(raw).replace(/\$\{\w+:-([^}]*)\}/g, '$1');
  if (/\$\{/.test(value) || /[\n\0]/.test(value)) continue; // a required secret: the caller sets it
  process.stdout.write(`${key}=${value}\n`);
}
