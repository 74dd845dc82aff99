#!/usr/bin/env node
/**
 * Extracts every node type and its typeVersions from an installed n8n into the committed fixture
 * test/pinned-n8n/node-types-<version>.json, so that `make test` can check the workflows without n8n.
 * Run once per n8n upgrade:
 *   node test/pinned-n8n/extract-node-types.mjs [<n8n install dir>]
 * (default ${LAB_CACHE:-$HOME/.cache/soar-lab}/n8n-2.41.1, as installed by test/pinned-n8n/install.sh).
 * Plain Node, no dependencies.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const cache = process.env.LAB_CACHE || join(homedir(), '.cache', 'soar-lab');
const installDir = process.argv[2] || join(cache, 'n8n-2.41.1');
const modules = join(installDir, 'node_modules');
const n8nVersion = JSON.parse(readFileSync(join(modules, 'n8n', 'package.json'), 'utf8')).version;

/** Node packages whose descriptions n8n ships as dist/types/nodes.json; the name prefix is the package. */
const packages = [
  ['n8n-nodes-base', 'n8n-nodes-base'],
  ['@n8n/n8n-nodes-langchain', '@n8n/n8n-nodes-langchain'],
];

const nodes = {};
for (const [dir, prefix] of packages) {
  const pkgVersion = JSON.parse(readFileSync(join(modules, dir, 'package.json'), 'utf8')).version;
  const descriptions = JSON.parse(readFileSync(join(modules, dir, 'dist', 'types', 'nodes.json'), 'utf8'));
  for (const d of descriptions) {
    const type = `${prefix}.${d.name}`;
    const versions = new Set(nodes[type] ?? []);
    for (const v of [d.version].flat()) versions.add(v);
    nodes[type] = [...versions].sort((a, b) => a - b);
  }
  console.error(`${dir}@${pkgVersion}: ${descriptions.length} descriptions`);
}

const sorted = Object.fromEntries(Object.entries(nodes).sort(([a], [b]) => a.localeCompare(b)));
const out = join(dirname(fileURLToPath(import.meta.url)), `node-types-${n8nVersion}.json`);
const fixture = {
  n8n: n8nVersion,
  source: 'node_modules/{n8n-nodes-base,@n8n/n8n-nodes-langchain}/dist/types/nodes.json',
  generated_by: 'test/pinned-n8n/extract-node-types.mjs',
  nodes: sorted,
};
// One node type per line: reviewable diffs on an n8n upgrade.
const lines = Object.entries(sorted).map(
  ([type, versions]) => `    ${JSON.stringify(type)}: ${JSON.stringify(versions)}`,
);
const head = JSON.stringify({ ...fixture, nodes: undefined }, null, 2).replace(/\n}$/, '');
writeFileSync(out, `${head},\n  "nodes": {\n${lines.join(',\n')}\n  }\n}\n`);
console.error(`wrote ${out}: ${Object.keys(sorted).length} node types`);
