/**
 * test/ mirrors app/: a room's tests sit at the room's path under test/ (app/api/store → test/api/store,
 * app/tool-kit → test/tool-kit), so a room's tests are found from its name. The rooms are app/'s folders
 * as test/lint/rooms.test.ts counts them: each folder of app/, the mock API's parts (app/api/<part>) each
 * a room of its own. A test's rooms are those of the app/ modules it names, in an import or as a path it
 * starts (`app/x/y.ts`, `dist/app/x/y.js`), itself or through the test/ files it imports. A test (a
 * `.test.ts` or `.browser.ts` file) sits either in a shared folder below, or under test/<room>/ for a room
 * it uses, or for a part or the whole of one it uses (a test of the mock API's routes through the whole
 * app sits in test/api/routes/); a test whose rooms are one room sits in that room's folder.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The folders of test/ that are no room's, each with what it holds. */
const SHARED: Record<string, string> = {
  appliance:
    "the lab's host script run over fake docker, n8n and date; compose and the Dockerfile read as text",
  bench: "the benchmark's fixtures (bench/, beside app/)",
  browser: '`make test-console`: the console and the class views in a real browser',
  contract: "the mock API's OpenAPI document against its server, linters and a generated client",
  docs: 'the docs held to what they describe',
  e2e: '`make e2e`, `e2e-check`, `e2e-guide` (all three on one n8n: `e2e-all`): the matrix and the checker against the pinned n8n',
  editor: "`make test-editor`: n8n's editor as the trainee uses it, in a browser",
  engine: '`make test-engine`: the lab on a private Docker engine with stand-in images',
  fuzz: 'properties of the mock API over generated requests, in process and on a socket',
  helpers: 'what the tests share: the mock API in process, raw HTTP, processes, chromium',
  k8s: "the Kubernetes base rendered and held to the lab's rules; its start and verify scripts",
  lab: '`make test-lab`: the whole lab on its real images',
  lib: "the shell parts the suites' scripts share",
  lint: 'rules over the code itself: the rooms, the entry points, this mirror, the shell',
  netns: "the lab's network isolation, in network namespaces",
  'pinned-n8n': "the pinned n8n's install and its node types",
};

type Files = Record<string, string>;

function tree(dir: string, keep: (path: string) => boolean, into: Files = {}): Files {
  if (!existsSync(dir)) return into;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'generated') tree(path, keep, into);
    } else if (keep(path)) into[relative('.', path)] = readFileSync(path, 'utf8');
  }
  return into;
}

/** app/'s rooms: each folder of app/, and each part of the mock API (`api/http`), as rooms.test.ts counts them. */
function roomsOf(app: readonly string[]): Set<string> {
  const rooms = new Set<string>();
  for (const path of app) {
    const parts = path.split('/');
    if (parts.length < 3) continue;
    rooms.add(parts[1] === 'api' && parts.length > 3 ? `api/${parts[2]}` : (parts[1] ?? ''));
  }
  return rooms;
}

/** The room of `app/<path>`, when it is one. */
function roomOfPath(path: string, rooms: Set<string>): string | undefined {
  const parts = path.split('/');
  const room = parts[0] === 'api' && parts.length > 2 ? `api/${parts[1]}` : parts[0];
  return parts.length > 1 && room !== undefined && rooms.has(room) ? room : undefined;
}

/** The rooms a file names itself: `app/x/y.ts`, `../../app/x/y.js`, `dist/app/x/y.js`. */
function namedRooms(text: string, rooms: Set<string>): Set<string> {
  const found = new Set<string>();
  for (const [, path] of text.matchAll(/(?<![\w-])app\/([\w./-]+?)\.(?:ts|js)\b/g)) {
    const room = roomOfPath(path ?? '', rooms);
    if (room !== undefined) found.add(room);
  }
  return found;
}

/** The test/ files a file imports (`./x.js` is the source `x.ts`). */
function testImports(path: string, text: string, files: Files): string[] {
  const found: string[] = [];
  for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const target = normalize(join(dirname(path), spec ?? ''));
    for (const candidate of [target.replace(/\.js$/, '.ts'), target]) {
      if (candidate.startsWith('test/') && candidate in files) {
        found.push(candidate);
        break;
      }
    }
  }
  return found;
}

/** A file's rooms: those it names, and those the test/ files it imports name, all the way down. */
function roomsUsed(path: string, files: Files, rooms: Set<string>, seen = new Set<string>()): Set<string> {
  const found = new Set<string>();
  if (seen.has(path)) return found;
  seen.add(path);
  const text = files[path] ?? '';
  for (const room of namedRooms(text, rooms)) found.add(room);
  for (const helper of testImports(path, text, files))
    for (const room of roomsUsed(helper, files, rooms, seen)) found.add(room);
  return found;
}

/** One room is the other, or a part of it, or holds it: `api` and `api/http`. */
const related = (a: string, b: string) => a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);

const isTest = (path: string) => /\.(?:test|browser)\.ts$/.test(path);

/** Every test that sits outside the folder of its room, or in a folder that is neither a room nor shared. */
function violations(files: Files, rooms: Set<string>, shared: Record<string, string>): string[] {
  const found: string[] = [];
  for (const path of Object.keys(files).filter(isTest).sort()) {
    const folder = dirname(path).slice('test/'.length);
    if ((folder.split('/')[0] ?? '') in shared) continue;
    const here = [...rooms]
      .filter((room) => folder === room || folder.startsWith(`${room}/`))
      .sort((a, b) => b.length - a.length)[0];
    if (here === undefined) {
      found.push(`${path}: test/${folder}/ is neither a room of app/ nor a shared folder`);
      continue;
    }
    const used = [...roomsUsed(path, files, rooms)].sort();
    const [only] = used;
    if (used.length === 0) found.push(`${path}: uses no module of app/, so it is no test of ${here}`);
    else if (used.length === 1 && only !== here)
      found.push(`${path}: uses app/${only} only, so it belongs in test/${only}/`);
    else if (!used.some((room) => related(room, here)))
      found.push(`${path}: sits in test/${here}/ but uses app/${used.join(', app/')}`);
  }
  return found;
}

describe('test/ mirrors app/', () => {
  const rooms = roomsOf(Object.keys(tree('app', (path) => path.endsWith('.ts'))));
  const files = tree('test', (path) => /\.(?:ts|mjs)$/.test(path));

  it('every test sits in the folder of a room it uses, or in a shared folder', () => {
    expect(rooms).toEqual(new Set([...rooms].filter((room) => existsSync(join('app', room)))));
    expect([...rooms]).toEqual(expect.arrayContaining(['api', 'api/http', 'tool-kit', 'mock-api-client']));
    expect(Object.keys(files).filter(isTest).length).toBeGreaterThan(100);
    expect(violations(files, rooms, SHARED)).toEqual([]);
  });

  it('every folder of test/ is a room or a shared folder, and no shared folder is a room', () => {
    const folders = readdirSync('test', { withFileTypes: true }).filter((entry) => entry.isDirectory());
    const strays = folders.map((entry) => entry.name).filter((name) => !rooms.has(name) && !(name in SHARED));
    expect(strays).toEqual([]);
    expect(Object.keys(SHARED).filter((name) => rooms.has(name))).toEqual([]);
  });

  const brotli = 'test/api/http/brotli-splice.test.ts';
  it.each([
    [
      "a test of one part of the mock API in the API's folder",
      { 'test/api/x.test.ts': "import { a } from '../../app/api/http/brotli-splice.js';" },
      ['test/api/x.test.ts: uses app/api/http only, so it belongs in test/api/http/'],
    ],
    [
      "the tool kit's test in the console's folder",
      { 'test/console/x.test.ts': "import { a } from '../../app/tool-kit/key-file.js';" },
      ['test/console/x.test.ts: uses app/tool-kit only, so it belongs in test/tool-kit/'],
    ],
    [
      'a test in a folder that is no room',
      { 'test/process/x.test.ts': "import { a } from '../../app/api/config.js';" },
      ['test/process/x.test.ts: test/process/ is neither a room of app/ nor a shared folder'],
    ],
    [
      'a test that uses no module of app/ in a room',
      { 'test/driver/x.test.ts': "import { a } from 'node:fs';" },
      ['test/driver/x.test.ts: uses no module of app/, so it is no test of driver'],
    ],
    [
      'a test of two rooms in a third',
      {
        'test/judging/x.test.ts':
          "import { a } from '../../app/driver/moves.js';\nconst cli = 'app/targets/options.ts';",
      },
      ['test/judging/x.test.ts: sits in test/judging/ but uses app/driver, app/targets'],
    ],
    [
      "a test whose helper's rooms are not its folder's",
      {
        'test/stages/x.test.ts': "import { a } from '../console/harness.js';",
        'test/console/harness.ts': "const main = 'app/console/main.ts';",
      },
      ['test/stages/x.test.ts: uses app/console only, so it belongs in test/console/'],
    ],
  ])('fails on %s', (_name, extra, expected) => {
    expect(violations({ ...files, ...extra }, rooms, SHARED)).toEqual(expected);
  });

  it('fails on a test moved out of its room, and passes it through the whole when it uses the whole', () => {
    const text = files[brotli];
    if (text === undefined) throw new Error(`${brotli} is not there`);
    const { [brotli]: _, ...others } = files;
    expect(violations({ ...others, 'test/api/store/brotli-splice.test.ts': text }, rooms, SHARED)).toEqual([
      'test/api/store/brotli-splice.test.ts: uses app/api/http only, so it belongs in test/api/http/',
    ]);
    const whole = `import { a } from '../../helpers/test-app.js';\n${text}`;
    expect(violations({ ...others, 'test/api/routes/b.test.ts': whole }, rooms, SHARED)).toEqual([]);
  });
});
