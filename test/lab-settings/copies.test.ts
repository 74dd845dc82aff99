/**
 * The copies of the lab settings that a format cannot import, held equal to app/lab-settings/settings.ts:
 * compose.yaml's `${NAME:-default}`, the Kubernetes base's configMap literals, every `soar-lab/mock-api:TAG`
 * and `soar-lab/walls:TAG` (compose, the Kubernetes base, the host scripts, the tests' scripts, the docs),
 * the docs' settings tables (`| \`NAME\` | \`default\` | ...`), and the version's copies: package.json's
 * and CHANGELOG.md's newest entry; and app/lab-settings/names.ts's: the lab-name rule, the report files' names and
 * the history's bound are written nowhere else in app/ or the product's shell (which sources their generated copy,
 * docker/lab/settings.generated.sh), and every `/reports/<file>` of compose and the Kubernetes base is a declared
 * report file. Each check is also shown to fail on a broken copy.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  HISTORY_FILE,
  HISTORY_KEPT,
  LAB_NAME_PATTERN,
  LAB_NAME_WORDS,
  REPORT_FILE,
  RUNS_FILE,
} from '../../app/lab-settings/names.js';
import { LAB_IMAGE, LAB_SETTINGS, LAB_VERSION, WALLS_IMAGE } from '../../app/lab-settings/settings.js';
import { SHELL_FILE } from '../../app/lab-settings/shell.js';

type Files = Record<string, string>;

const DEFAULTS = new Map(LAB_SETTINGS.map((s) => [s.name, String(s.default)]));
const NAMES = LAB_SETTINGS.map((s) => s.name).join('|');
const IMAGES = [LAB_IMAGE, WALLS_IMAGE];

/** Every `${NAME:-value}` of a declared setting whose value is not the declared default. */
function composeProblems(files: Files): string[] {
  const found: string[] = [];
  for (const [path, text] of Object.entries(files)) {
    for (const m of text.matchAll(new RegExp(`\\$\\{(${NAMES}):?-([^}]*)\\}`, 'g'))) {
      const [, name = '', value = ''] = m;
      if (value !== DEFAULTS.get(name))
        found.push(`${path}: \${${name}:-${value}}, declared ${DEFAULTS.get(name)}`);
    }
  }
  return found;
}

/** Every `- NAME=value` literal of a declared setting in a kustomization whose value is not the default. */
function literalProblems(files: Files): string[] {
  const found: string[] = [];
  for (const [path, text] of Object.entries(files)) {
    for (const m of text.matchAll(new RegExp(`^\\s*- (${NAMES})=(.*)$`, 'gm'))) {
      const [, name = '', value = ''] = m;
      if (value !== DEFAULTS.get(name))
        found.push(`${path}: ${name}=${value}, declared ${DEFAULTS.get(name)}`);
    }
  }
  return found;
}

/** Every `soar-lab/mock-api:TAG` or `soar-lab/walls:TAG` whose tag is not the declared image's. */
function imageProblems(files: Files): string[] {
  const found: string[] = [];
  for (const declared of IMAGES) {
    const [name] = declared.split(':');
    for (const [path, text] of Object.entries(files)) {
      for (const [image] of text.matchAll(new RegExp(`${name}:[A-Za-z0-9._-]*[A-Za-z0-9_]`, 'g'))) {
        if (image !== declared) found.push(`${path}: ${image}, declared ${declared}`);
      }
    }
  }
  return found;
}

/** package.json's version and CHANGELOG.md's newest entry (its first `## <version>` heading), if not the declared one. */
function versionProblems(files: Files): string[] {
  const found: string[] = [];
  const pkg = files['package.json'];
  const changelog = files['CHANGELOG.md'];
  const pkgVersion = pkg === undefined ? undefined : String(JSON.parse(pkg).version);
  if (pkgVersion !== LAB_VERSION) found.push(`package.json: ${pkgVersion}, declared ${LAB_VERSION}`);
  const newest = changelog?.match(/^## (\S+)/m)?.[1];
  if (newest !== LAB_VERSION) found.push(`CHANGELOG.md: newest ${newest}, declared ${LAB_VERSION}`);
  return found;
}

/** Every docs table row `| \`NAME\` | ... |` whose second cell does not start with the default in backticks. */
function tableProblems(files: Files): string[] {
  const found: string[] = [];
  for (const [path, text] of Object.entries(files)) {
    for (const m of text.matchAll(new RegExp(`^\\| \`(${NAMES})\` \\| ([^|]*)\\|`, 'gm'))) {
      const [, name = '', cell = ''] = m;
      if (!cell.startsWith(`\`${DEFAULTS.get(name)}\``))
        found.push(`${path}: ${name}'s default is ${cell.trim()}, declared ${DEFAULTS.get(name)}`);
    }
  }
  return found;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** What app/lab-settings/names.ts declares, as it would be written again by hand. */
const NAME_COPIES = new RegExp(
  [
    ...[REPORT_FILE, HISTORY_FILE, RUNS_FILE, LAB_NAME_WORDS, LAB_NAME_PATTERN.source].map(escapeRegExp),
    `\\b(LAB_NAME_PATTERN|LAB_NAME_WORDS|REPORT_FILE|HISTORY_FILE|RUNS_FILE|HISTORY_KEPT)=`,
    `(tail -n\\s*|\\.max\\(|(KEPT|LIMIT)\\s*=\\s*)${HISTORY_KEPT}\\b`,
  ].join('|'),
);
/** A comment line of TypeScript or shell: it may name a file in words. */
const COMMENT = /^\s*(\/\/|\/\*|\*|#)/;

/** Every code line of app/ or the product's shell that writes a name of names.ts again instead of importing it. */
function nameProblems(files: Files): string[] {
  const found: string[] = [];
  for (const [path, text] of Object.entries(files)) {
    text.split('\n').forEach((line, at) => {
      if (!COMMENT.test(line) && NAME_COPIES.test(line)) found.push(`${path}:${at + 1}: ${line.trim()}`);
    });
  }
  return found;
}

/** Every `/reports/<file>` of a manifest that is not a declared report file. */
function reportPathProblems(files: Files): string[] {
  const found: string[] = [];
  for (const [path, text] of Object.entries(files)) {
    for (const [, file = ''] of text.matchAll(/\/reports\/([A-Za-z0-9._-]+)/g)) {
      if (![REPORT_FILE, HISTORY_FILE, RUNS_FILE].includes(file))
        found.push(`${path}: /reports/${file}, declared ${REPORT_FILE}, ${HISTORY_FILE}, ${RUNS_FILE}`);
    }
  }
  return found;
}

/** Counts of the copies found, so that a check that finds nothing fails. */
function count(files: Files, pattern: RegExp): number {
  return Object.values(files).reduce((n, text) => n + [...text.matchAll(pattern)].length, 0);
}

function read(paths: readonly string[]): Files {
  return Object.fromEntries(paths.map((p) => [p, readFileSync(p, 'utf8')]));
}

function tree(dir: string, keep: (name: string) => boolean, into: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) tree(path, keep, into);
    else if (keep(entry.name)) into.push(path);
  }
  return into;
}

const compose = read(['compose.yaml']);
const base = read(tree('deploy/kubernetes/base', (n) => n.endsWith('.yaml')));
const docs = read(['README.md', ...tree('docs', (n) => n.endsWith('.md'))]);
const scripts = read([
  'Makefile',
  ...tree('docker', (n) => n.endsWith('.sh')),
  ...tree('deploy', (n) => n.endsWith('.sh')),
  ...tree('test', (n) => n.endsWith('.sh')),
]);

const code = read([
  // names.ts declares them, shell.ts writes their shell copy.
  ...tree('app', (n) => n.endsWith('.ts')).filter((p) => !/^app\/lab-settings\/(names|shell)\.ts$/.test(p)),
  ...tree('docker', (n) => n.endsWith('.sh')).filter((p) => p !== SHELL_FILE),
]);

describe('the copies of the lab settings', () => {
  it("compose.yaml's defaults are the declared ones", () => {
    expect(composeProblems(compose)).toEqual([]);
    expect(count(compose, /\$\{APPROVAL_TIMEOUT_SECONDS:-/g)).toBeGreaterThanOrEqual(3);
    expect(count(compose, /\$\{LAB_STARTERS:-/g)).toBeGreaterThanOrEqual(2);
  });

  it("the Kubernetes base's literals are the declared defaults", () => {
    expect(literalProblems(base)).toEqual([]);
    expect(count(base, /^\s*- (LAB_MODE|APPROVAL_TIMEOUT_SECONDS)=/gm)).toBe(2);
  });

  it("every soar-lab/mock-api:TAG is the declared image's", () => {
    const all = { ...compose, ...base, ...docs, ...scripts };
    expect(imageProblems(all)).toEqual([]);
    expect(count(compose, new RegExp(`image: ${LAB_IMAGE}$`, 'gm'))).toBe(3);
    expect(count(base, new RegExp(`image: ${LAB_IMAGE}$`, 'gm'))).toBe(3);
    expect(count(compose, new RegExp(`image: ${WALLS_IMAGE}$`, 'gm'))).toBe(1);
  });

  it("package.json's version and CHANGELOG.md's newest entry are the declared version", () => {
    expect(versionProblems(read(['package.json', 'CHANGELOG.md']))).toEqual([]);
  });

  it("the docs' settings tables give the declared defaults", () => {
    expect(tableProblems(docs)).toEqual([]);
    expect(count(docs, new RegExp(`^\\| \`(${NAMES})\` \\|`, 'gm'))).toBeGreaterThanOrEqual(6);
  });

  it("the lab-name rule, the report files' names and the history's bound are names.ts's alone", () => {
    expect(Object.keys(code).length).toBeGreaterThan(200);
    expect(nameProblems(code)).toEqual([]);
    expect(reportPathProblems({ ...compose, ...base })).toEqual([]);
    expect(count({ ...compose, ...base }, /\/reports\/[a-z]/g)).toBeGreaterThanOrEqual(2);
  });

  it.each([
    [
      'the lab-name pattern',
      nameProblems,
      { 'app/x.ts': 'const NAME = /^[a-z]([a-z0-9-]{0,30}[a-z0-9])?$/;' },
    ],
    ['a report file in a script', nameProblems, { 'docker/x.sh': 'copy_report check-last.json' }],
    ['a history file assigned again', nameProblems, { 'docker/x.sh': 'HISTORY_FILE=check-history' }],
    ['the bound', nameProblems, { 'docker/x.sh': 'tail -n 5000 "$f"' }],
    ['the bound in a schema', nameProblems, { 'app/x.ts': 'history: z.array(z.unknown()).max(5000),' }],
    [
      'a report path in compose',
      reportPathProblems,
      { 'compose.yaml': 'CHECK_REPORT: /reports/check-latest.json' },
    ],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's own interpolation, literally
    ['a compose default', composeProblems, { 'c.yaml': 'A: ${APPROVAL_TIMEOUT_SECONDS:-120}' }],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's own interpolation, literally
    ['a compose default without its colon', composeProblems, { 'c.yaml': 'A: ${LAB_STARTERS-off}' }],
    ['a kustomize literal', literalProblems, { 'k.yaml': '    literals:\n      - LAB_MODE=demo\n' }],
    ['an image tag', imageProblems, { 'x.sh': 'docker run soar-lab/mock-api:0.9.9 node' }],
    ['a walls image tag', imageProblems, { 'x.sh': 'docker run soar-lab/walls:0.9.9 sh' }],
    [
      "package.json's version",
      versionProblems,
      { 'package.json': '{"version":"0.9.9"}', 'CHANGELOG.md': `# Changes\n\n## ${LAB_VERSION}\n` },
    ],
    [
      "CHANGELOG.md's newest entry",
      versionProblems,
      {
        'package.json': `{"version":"${LAB_VERSION}"}`,
        'CHANGELOG.md': `# Changes\n\n## 0.9.9\n\n## ${LAB_VERSION}\n`,
      },
    ],
    ['a docs table', tableProblems, { 'd.md': '| `APPROVAL_TIMEOUT_SECONDS` | `120` | the limit |' }],
    ['a docs table without backticks', tableProblems, { 'd.md': '| `LAB_STARTERS` | on | starters |' }],
  ])('fails on %s that is not the declared one', (_what, check, files) => {
    expect(check(files)).toHaveLength(1);
  });
});
