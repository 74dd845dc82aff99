/**
 * What a newcomer reads first is true of every file: each app/ source file opens (after a #! line, if any)
 * with a comment that says what it is, and each file that comment names (./x.ts, app/y/z.ts, docker/lab.sh)
 * is one of the repository's; every shell file of the repository, the product's and the tests',
 * is at most 400 lines, as app/'s TypeScript is (test/lint/rooms.test.ts); shellcheck holds them all
 * (test/lint/shell.sh).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const MAX_SHELL_LINES = 400;

type Sources = Record<string, string>;

const tracked = (...patterns: string[]) =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', ...patterns], {
    encoding: 'utf8',
  })
    .split('\n')
    .filter((path) => path !== '' && existsSync(path));

const read = (paths: readonly string[]): Sources =>
  Object.fromEntries(paths.map((path) => [path, readFileSync(path, 'utf8')]));

/** The files whose first line is not a comment (the line after a #! line, when there is one). */
function withoutHead(sources: Sources): string[] {
  return Object.entries(sources)
    .filter(([, text]) => {
      const lines = text.split('\n');
      const at = lines[0]?.startsWith('#!') ? 1 : 0;
      const [first = '', second = ''] = lines.slice(at, at + 2);
      const says =
        /^(\/\*\*?\s*[^\s*]|\/\/\s*\S)/.test(first) ||
        (/^\/\*\*?\s*$/.test(first) && /^\s*\*\s*[^\s/]/.test(second));
      return !says;
    })
    .map(([path]) => `${path}: no head comment saying what it is`);
}

/** The head comment of a source file (after a #! line, if any): its text, or '' when it opens with none. */
function headOf(text: string): string {
  const body = text.startsWith('#!') ? text.slice(text.indexOf('\n') + 1) : text;
  return /^\s*(\/\*[\s\S]*?\*\/|(?:\/\/[^\n]*\n)+)/.exec(body)?.[1] ?? '';
}

/**
 * A file's name as a head comment gives it: a path of the repository's (app/x.ts, docker/lab.sh, ./a.ts,
 * ../b/c.ts, main.ts) ending in a source or document extension; a glob's part (variants-*.test.ts) is none,
 * nor are data files a lab writes (reports/runs.json).
 */
const FILE_NAME =
  /(?<![\w./*<>-])((?:\.{1,2}\/)?(?:[\w.-]+\/)*[\w-][\w.-]*\.(?:ts|js|mjs|cjs|sh|md|yaml|yml|html|css))(?![\w/*-])/g;

/**
 * A built file's sources: dist/ is the build's output, not the repository's, so dist/app/x/y.js stands for
 * app/x/y.ts, or app/x/client/y.ts for the browser's bundles (dist/app/console/console.js).
 */
const sourcesOfBuilt = (place: string): string[] => {
  if (!place.startsWith('dist/') || !place.endsWith('.js')) return [];
  const source = `${place.slice('dist/'.length, -'.js'.length)}.ts`;
  return [source, join(dirname(source), 'client', source.slice(dirname(source).length + 1))];
};

/**
 * Each file a head comment names that the repository does not hold: the name is taken from the commenting
 * file's folder and from the repository's root (a .js name as its .ts source, a built file as its
 * source); none found is a dead name.
 */
function deadNames(sources: Sources, exists: (path: string) => boolean): string[] {
  return Object.entries(sources).flatMap(([path, text]) =>
    [...headOf(text).matchAll(FILE_NAME)].flatMap(([, name = '']) => {
      const places = [normalize(join(dirname(path), name)), normalize(name)];
      const found = places.some(
        (p) =>
          exists(p) ||
          (p.endsWith('.js') && exists(`${p.slice(0, -3)}.ts`)) ||
          sourcesOfBuilt(p).some((source) => exists(source)),
      );
      return found ? [] : [`${path}: its head comment names ${name}, which is no file of the repository`];
    }),
  );
}

/** A shell file as test/lint/shell.sh finds one: named .sh, or its first line a bash or sh #!, or sourced. */
const isShell = (path: string, text: string) => {
  const first = text.split('\n', 1)[0] ?? '';
  return (
    path.endsWith('.sh') || first.startsWith('# shellcheck shell=') || /^#!.*(bash|\/sh)( |$)/.test(first)
  );
};

function tooLong(sources: Sources): string[] {
  return Object.entries(sources).flatMap(([path, text]) => {
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    return lines > MAX_SHELL_LINES ? [`${path}: ${lines} lines (at most ${MAX_SHELL_LINES})`] : [];
  });
}

describe('the heads of app/ and the size of the shell', () => {
  it('every app/ source file opens with a comment that says what it is', () => {
    const app = read(tracked('app/*.ts'));
    expect(Object.keys(app).length).toBeGreaterThan(150);
    expect(withoutHead(app)).toEqual([]);
  });

  it('every file an app/ head comment names is one of the repository', () => {
    const app = read(tracked('app/*.ts'));
    const named = Object.values(app).flatMap((text) => [...headOf(text).matchAll(FILE_NAME)]);
    expect(named.length).toBeGreaterThan(100);
    expect(deadNames(app, existsSync)).toEqual([]);
  });

  it.each([
    [
      'a sibling by ./',
      { 'app/a/x.ts': '/** Reads ./parse.ts. */\n' },
      ['app/a/x.ts: its head comment names ./parse.ts, which is no file of the repository'],
    ],
    [
      'a bare sibling',
      { 'app/a/x.ts': '/** main.ts opens it. */\n' },
      ['app/a/x.ts: its head comment names main.ts, which is no file of the repository'],
    ],
    [
      'a path from the root',
      { 'app/a/x.ts': '/**\n * As docker/lab/gone.sh does.\n */\n' },
      ['app/a/x.ts: its head comment names docker/lab/gone.sh, which is no file of the repository'],
    ],
    [
      'a path cut by a line break',
      { 'app/a/x.ts': '/** deploy/base/\n * mock.yaml */\n' },
      ['app/a/x.ts: its head comment names mock.yaml, which is no file of the repository'],
    ],
    [
      'files that are there',
      { 'app/a/x.ts': '/** ./y.ts, ../b/z.js, y.ts, app/b/z.ts, docker/lab.sh. */\n' },
      [],
    ],
    [
      'a built file: its source, or none',
      { 'app/a/x.ts': '/** dist/app/a/y.js, dist/app/b/q.js. */\n' },
      ['app/a/x.ts: its head comment names dist/app/b/q.js, which is no file of the repository'],
    ],
    [
      'a glob, a data file, a name after the head',
      { 'app/a/x.ts': '/** variants-*.test.ts, reports/runs.json. */\n// gone.ts\n' },
      [],
    ],
  ])('a named file: %s', (_, sources: Sources, found) => {
    const files = new Set(['app/a/y.ts', 'app/b/z.ts', 'docker/lab.sh']);
    expect(deadNames(sources, (p) => files.has(p))).toEqual(found);
  });

  it("every shell file, the tests' too, is at most 400 lines", () => {
    const all = read(tracked().filter((path) => !/\.(png|gz|tgz|ico|woff2?)$/.test(path)));
    const shell = Object.fromEntries(Object.entries(all).filter(([path, text]) => isShell(path, text)));
    expect(Object.keys(shell).filter((path) => path.startsWith('test/')).length).toBeGreaterThan(20);
    expect(Object.keys(shell).filter((path) => path.startsWith('docker/')).length).toBeGreaterThan(10);
    expect(tooLong(shell)).toEqual([]);
  });

  it.each([
    [
      'a file that opens with an import',
      { 'app/x.ts': "import { a } from './a.js';\n" },
      ['app/x.ts: no head comment saying what it is'],
    ],
    [
      'an entry whose #! line is followed by code',
      { 'app/x.ts': "#!/usr/bin/env node\nimport './a.js';\n" },
      ['app/x.ts: no head comment saying what it is'],
    ],
    ['an empty comment', { 'app/x.ts': '/**\n * \n */\n' }, ['app/x.ts: no head comment saying what it is']],
    ['a comment whose text starts on its second line', { 'app/x.ts': '/**\n * The thing.\n */\n' }, []],
    ['a one-line comment', { 'app/x.ts': '/** The thing. */\nexport const a = 1;\n' }, []],
    ['a #! line, then the comment', { 'app/x.ts': '#!/usr/bin/env node\n/** Entry point. */\n' }, []],
  ])('a head: %s', (_, sources: Sources, found) => {
    expect(withoutHead(sources)).toEqual(found);
  });

  it('a shell file of 401 lines is found, one of 400 is not; a TypeScript file is no shell file', () => {
    expect(tooLong({ 'test/lab/x.sh': 'x\n'.repeat(401), 'docker/y.sh': 'y\n'.repeat(400) })).toEqual([
      'test/lab/x.sh: 401 lines (at most 400)',
    ]);
    expect(isShell('test/lab/part', '# shellcheck shell=bash\n')).toBe(true);
    expect(isShell('docker/entry', '#!/bin/sh\n')).toBe(true);
    expect(isShell('app/x.ts', '#!/usr/bin/env node\n')).toBe(false);
  });
});
