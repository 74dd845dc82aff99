/**
 * One naming rule for the entry points of app/, the modules a process is started with: a server's entry is
 * `main.ts` or `<what>-main.ts` (it starts a server), a command's is `cli.ts` or `<what>-cli.ts` (it starts
 * none), and no other file is so named. The entry points are read from where processes are started: the
 * `dist/app/...js` and `tsx app/...ts` paths in package.json, the Dockerfile, the Makefile, compose.yaml,
 * docker/, deploy/, .ci/ and test/**\/*.sh, and the `npx tsx app/...ts` usage line a generator gives in
 * its own header.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/** `main.ts`, `cli.ts`, `<what>-main.ts`, `<what>-cli.ts`; the group is the kind. */
const ENTRY_NAME = /^(?:[a-z0-9]+(?:-[a-z0-9]+)*-)?(main|cli)\.ts$/;
/** What starting a server looks like in an entry's own text. */
const STARTS_SERVER = /\b(?:serve|startServer)\(/;
type Files = Record<string, string>;

function tree(dir: string, keep: (path: string) => boolean, into: Files = {}): Files {
  if (!existsSync(dir)) return into;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') tree(path, keep, into);
    } else if (keep(path)) into[relative('.', path)] = readFileSync(path, 'utf8');
  }
  return into;
}

/** The app/ modules the texts start: `dist/app/x.js` is the source `app/x.ts`. */
function entryPointsIn(texts: Files): Map<string, string> {
  const named = new Map<string, string>();
  for (const [where, text] of Object.entries(texts)) {
    for (const [, path] of text.matchAll(/\bdist\/(app\/[\w./-]+?)\.js\b/g)) named.set(`${path}.ts`, where);
    for (const [, path] of text.matchAll(/\btsx\s+(app\/[\w./-]+?\.ts)\b/g)) named.set(path as string, where);
  }
  return named;
}

/** Every way the entry points and the names of app/'s files break the rule. */
function violations(named: Map<string, string>, app: Files): string[] {
  const found: string[] = [];
  for (const [path, where] of [...named].sort()) {
    const text = app[path];
    if (text === undefined) {
      found.push(`${where} starts ${path}, which is not a file of app/`);
      continue;
    }
    const kind = ENTRY_NAME.exec(basename(path))?.[1];
    if (kind === undefined)
      found.push(
        `${path} is an entry point (${where}): name it main.ts, cli.ts, <what>-main.ts or <what>-cli.ts`,
      );
    else if (kind === 'main' && !STARTS_SERVER.test(text))
      found.push(`${path} starts no server: a command is <what>-cli.ts`);
    else if (kind === 'cli' && STARTS_SERVER.test(text))
      found.push(`${path} starts a server: a server is <what>-main.ts`);
  }
  for (const path of Object.keys(app).sort()) {
    if (ENTRY_NAME.test(basename(path)) && !named.has(path)) {
      found.push(`${path} is named as an entry point, but nothing starts it`);
    }
  }
  return found;
}

const startingPlaces = (): Files => {
  const top = ['package.json', 'Dockerfile', 'Makefile', 'compose.yaml'].filter((path) => existsSync(path));
  return {
    ...Object.fromEntries(top.map((path) => [path, readFileSync(path, 'utf8')])),
    ...tree('docker', () => true),
    ...tree('deploy', () => true),
    ...tree('.ci', () => true),
    ...tree('test', (path) => path.endsWith('.sh')),
    // A generator's usage line, in its own header: `npx tsx app/x/generate-cli.ts`.
    ...Object.fromEntries(
      Object.entries(tree('app', (path) => path.endsWith('.ts'))).map(([path, text]) => [
        path,
        [...text.matchAll(/npx tsx app\/[\w./-]+\.ts/g)].map((m) => m[0]).join('\n'),
      ]),
    ),
  };
};

describe('the entry points of app/', () => {
  const app = tree('app', (path) => path.endsWith('.ts'));
  const named = entryPointsIn(startingPlaces());

  it('are named for what they start, and nothing else is so named', () => {
    expect(named.size).toBeGreaterThan(10);
    expect([...named.keys()]).toEqual(
      expect.arrayContaining(['app/api/main.ts', 'app/check/cli.ts', 'app/classroom/board-main.ts']),
    );
    expect(violations(named, app)).toEqual([]);
  });

  it.each([
    [
      'a server named as a command',
      { 'app/classroom/board-cli.ts': 'serve({ fetch })' },
      ['app/classroom/board-cli.ts starts a server: a server is <what>-main.ts'],
    ],
    [
      'a command named as a server',
      { 'app/check/variant-main.ts': 'console.log(1)' },
      ['app/check/variant-main.ts starts no server: a command is <what>-cli.ts'],
    ],
    [
      'an entry point named for neither',
      { 'app/check/write-variant.ts': '' },
      [
        'app/check/write-variant.ts is an entry point (Makefile): name it main.ts, cli.ts, <what>-main.ts or <what>-cli.ts',
      ],
    ],
  ])('fails on %s', (_name, files, expected) => {
    const [path] = Object.keys(files);
    const more = new Map(named).set(path as string, 'Makefile');
    expect(violations(more, { ...app, ...files })).toEqual(expected);
  });

  it('fails on a file named as an entry point that nothing starts, and on a start of a missing file', () => {
    expect(violations(named, { ...app, 'app/judging/tool-main.ts': '' })).toEqual([
      'app/judging/tool-main.ts is named as an entry point, but nothing starts it',
    ]);
    const missing = new Map(named).set('app/harness/api-request.ts', 'docker/lab/lifecycle.sh');
    expect(violations(missing, app)).toEqual([
      'docker/lab/lifecycle.sh starts app/harness/api-request.ts, which is not a file of app/',
    ]);
  });
});
