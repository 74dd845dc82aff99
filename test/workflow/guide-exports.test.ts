/**
 * The guide's export files (docker/workflows/guide/, written by app/workflow/guide/generate-cli.ts) are what
 * the guide's workflow builds now, no file more or less; and each is an n8n workflow the pinned n8n can
 * import: node types and versions of its catalogue, unique names, connections to nodes that exist,
 * JavaScript and expressions that compile.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GUIDE_FILES } from '../../app/workflow/guide/exports.js';
import {
  checkJavaScript,
  checkNodeTypes,
  checkWellFormed,
  loadJson,
  type N8nWorkflow,
  type NodeTypeFixture,
  ROOT,
} from './checks.js';

const DIR = join(ROOT, 'docker', 'workflows', 'guide');
const fixture = loadJson<NodeTypeFixture>(join(ROOT, 'test', 'pinned-n8n', 'node-types-2.41.1.json'));

/** The files of `dir` that differ from what the generator writes, or are missing, or are extra. */
function staleFiles(dir: string, read: (file: string) => string): string[] {
  const present = readdirSync(dir).sort();
  const wanted = Object.keys(GUIDE_FILES).sort();
  return [
    ...wanted.filter((f) => !present.includes(f)).map((f) => `${f} is missing`),
    ...present.filter((f) => !wanted.includes(f)).map((f) => `${f} is no guide file`),
    ...wanted
      .filter((f) => present.includes(f) && read(f) !== GUIDE_FILES[f]?.())
      .map((f) => `${f} is stale`),
  ];
}

const read = (file: string) => readFileSync(join(DIR, file), 'utf8');

describe('docker/workflows/guide/', () => {
  it('holds what app/workflow/guide/generate-cli.ts writes (npx tsx app/workflow/guide/generate-cli.ts)', () => {
    expect(staleFiles(DIR, read)).toEqual([]);
  });

  it('control: a file edited by hand is stale', () => {
    const edited = (file: string) =>
      file === 'stage-05-decide.json' ? read(file).replace('>= 80', '> 80') : read(file);
    expect(staleFiles(DIR, edited)).toEqual(['stage-05-decide.json is stale']);
  });

  it.each(Object.keys(GUIDE_FILES).map((f) => [f]))('%s is a workflow the pinned n8n imports', (file) => {
    // The files carry no id (run.sh and the editor give one): the well-formed check's fixed id aside.
    const wf = { ...JSON.parse(read(file)), id: 'GuideWorkflow001' } as N8nWorkflow;
    expect([...checkNodeTypes(wf, fixture), ...checkWellFormed(wf), ...checkJavaScript(wf)]).toEqual([]);
  });
});
