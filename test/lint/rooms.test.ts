/**
 * The rooms of app/ and which may import which, written once: a room imports only the rooms below it here,
 * so the stage checker and the acceptance matrix are siblings over a shared lab room, the console imports
 * no tool, and app/n8n is the only client of n8n's API. Also: no source file in app/ over 400 lines.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ALLOWED: Record<string, readonly string[]> = {
  api: ['api/http', 'api/routes', 'api/store', 'api/schemas'],
  'api/http': ['api', 'lab', 'api/schemas', 'api/store'],
  'api/routes': ['api', 'api/http', 'api/schemas', 'api/store'],
  'api/schemas': ['api', 'workflow'],
  'api/store': ['api/schemas'],
  workflow: [],
  cli: ['lab'],
  lab: ['api'],
  n8n: ['lab'],
  targets: ['lab', 'workflow'],
  acceptance: ['lab', 'targets', 'workflow'],
  check: ['lab', 'n8n', 'targets', 'workflow'],
  console: ['api', 'lab', 'n8n', 'api/schemas', 'workflow'],
  classroom: ['lab'],
};

const MAX_LINES = 400;

type Sources = Record<string, string>;

/** app/<room>/...; the mock API's parts are rooms of their own: app/api/<part>/... is `api/<part>`. */
const roomOf = (path: string) => {
  const parts = path.split('/');
  if (parts[1] === 'api' && parts.length > 3) return `api/${parts[2]}`;
  return parts.length > 2 ? (parts[1] as string) : '(root of app)';
};

/** Every import that crosses into a room its room may not use, an unknown room, or a file too long. */
function violations(sources: Sources): string[] {
  const found: string[] = [];
  for (const [path, text] of Object.entries(sources)) {
    const room = roomOf(path);
    const allowed = ALLOWED[room];
    if (allowed === undefined) found.push(`${path}: room ${room} is not in the table`);
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_LINES) found.push(`${path}: ${lines} lines (at most ${MAX_LINES})`);
    for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const target = roomOf(normalize(join(dirname(path), spec as string)));
      if (target !== room && !allowed?.includes(target)) found.push(`${path}: ${room} imports ${target}`);
    }
    if (room !== 'n8n' && text.includes('/api/v1/')) found.push(`${path}: calls n8n's API outside app/n8n`);
  }
  return found;
}

function tree(dir: string, into: Sources = {}): Sources {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) tree(path, into);
    else if (entry.name.endsWith('.ts')) into[relative('.', path)] = readFileSync(path, 'utf8');
  }
  return into;
}

describe('the rooms of app/', () => {
  const sources = tree('app');

  it('every import goes to a room its room may use, no file is over 400 lines, n8n is called from app/n8n', () => {
    expect(Object.keys(sources).length).toBeGreaterThan(100);
    expect(violations(sources)).toEqual([]);
  });

  it.each([
    [
      'the console importing the checker',
      'app/console/x.ts',
      "import { a } from '../check/run-check.js';",
      'console imports check',
    ],
    [
      'the checker importing the matrix',
      'app/check/x.ts',
      "import { a } from '../acceptance/runner.js';",
      'check imports acceptance',
    ],
    [
      'the matrix importing the checker',
      'app/acceptance/x.ts',
      "import type { a } from '../check/scenarios.js';",
      'acceptance imports check',
    ],
    [
      'the n8n client importing the checker',
      'app/n8n/x.ts',
      "export { a } from '../check/kit.js';",
      'n8n imports check',
    ],
    [
      'the lab room importing a target',
      'app/lab/x.ts',
      "import { a } from '../targets/moves.js';",
      'lab imports targets',
    ],
    ['a room nobody declared', 'app/tools/x.ts', '', 'room tools is not in the table'],
    ['a file at the root of app/', 'app/x.ts', '', 'room (root of app) is not in the table'],
    [
      'the store importing the routes',
      'app/api/store/x.ts',
      "import { a } from '../routes/cases.js';",
      'api/store imports api/routes',
    ],
    ['a file of 401 lines', 'app/lab/x.ts', 'x\n'.repeat(401), '401 lines'],
    [
      'the checker calling n8n itself',
      'app/check/x.ts',
      "fetch(base + '/api/v1/executions');",
      "n8n's API outside",
    ],
  ])('fails on %s', (_name, path, text, message) => {
    const found = violations({ ...sources, [path]: text });
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(message);
  });
});
