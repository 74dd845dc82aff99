/**
 * The guide's workflow runs in the lab's image as compiled JavaScript (the starters, app/n8n/starter.ts),
 * where there is no TypeScript and no generator: app/workflow/guide may import at run time only its own
 * files, the workflow's constants, the export's shape (app/workflow/export.ts, which imports nothing), the
 * stages' declaration (app/stages) and Node's own modules (`import type` is erased and free).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './checks.js';

const DIR = join(ROOT, 'app', 'workflow', 'guide');

/** The run-time imports of a source text that are not ./x, ../constants.js, ../export.js, app/stages, node:x. */
function foreignImports(text: string): string[] {
  return [...text.matchAll(/^import (?!type )[^;]*?from '([^']+)'/gm)]
    .map((m) => m[1] ?? '')
    .filter(
      (spec) =>
        !/^\.\/[\w-]+\.js$/.test(spec) &&
        spec !== '../constants.js' &&
        spec !== '../export.js' &&
        spec !== '../../stages/stages.js' &&
        !spec.startsWith('node:'),
    );
}

describe('app/workflow/guide at run time', () => {
  it.each(readdirSync(DIR).map((f) => [f]))('%s imports only the guide, the constants and node:', (file) => {
    expect(foreignImports(readFileSync(join(DIR, file), 'utf8'))).toEqual([]);
  });

  it('app/workflow/export.ts, which the guide imports, imports nothing at run time', () => {
    const text = readFileSync(join(ROOT, 'app', 'workflow', 'export.ts'), 'utf8');
    expect([...text.matchAll(/^import (?!type )/gm)]).toEqual([]);
  });

  it('control: a run-time import from outside the guide (the simulator) is found, its import type is not', () => {
    expect(
      foreignImports(
        "import { runWorkflow } from '../../simulator/engine.js';\nimport type { X } from '../../simulator/engine.js';",
      ),
    ).toEqual(['../../simulator/engine.js']);
  });
});
