/**
 * The docs kept honest where a machine can: every make target they name exists, every relative link
 * resolves, the guides' commands are run by the lab test (or marked as examples), and no user doc carries
 * a clock time, an issue number or a path outside the repository.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const DOCS = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
/** The Makefile and the files it includes (deploy/kubernetes/k8s.mk). */
const MAKEFILES = [
  'Makefile',
  ...[...read('Makefile').matchAll(/^include (\S+)$/gm)]
    .map((m) => m[1])
    .filter((f): f is string => f !== undefined),
];
const TARGETS = new Set(
  [
    ...MAKEFILES.map(read)
      .join('\n')
      .matchAll(/^([a-z0-9-]+):/gm),
  ]
    .map((m) => m[1])
    .filter((t): t is string => t !== undefined),
);

/** The fenced blocks of a Markdown text: their info string and lines. */
function blocks(text: string): { lang: string; lines: string[] }[] {
  return [...text.matchAll(/^```([a-z]*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    lang: m[1] ?? '',
    lines: (m[2] ?? '')
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .filter(Boolean),
  }));
}

/** `make TARGET` in prose or code, outside URLs. */
function makeTargets(text: string): string[] {
  return [...text.matchAll(/`make ([a-z0-9-]+)/g), ...text.matchAll(/^make ([a-z0-9-]+)/gm)]
    .map((m) => m[1])
    .filter((t): t is string => t !== undefined);
}

describe('the docs', () => {
  it.each(DOCS)('%s names only make targets that exist', (doc) => {
    expect(makeTargets(read(doc)).filter((t) => !TARGETS.has(t))).toEqual([]);
  });

  it.each(DOCS)('%s: every relative link resolves', (doc) => {
    const links = [...read(doc).matchAll(/\]\(([^)\s#]+)(#[^)]*)?\)/g)]
      .map((m) => m[1] ?? '')
      .filter((l) => !/^[a-z]+:/.test(l));
    expect(links.filter((l) => !existsSync(join(root, dirname(doc), l)))).toEqual([]);
  });

  it.each(DOCS)('%s carries no clock time, issue number or path outside the repository', (doc) => {
    const text = read(doc);
    expect(text.match(/\b\d\d:\d\d UTC\b/g) ?? []).toEqual([]);
    expect(text.match(/\b[Ii]ssues? #?\d+\b|(?<![\w/])#\d{1,3}\b/g) ?? []).toEqual([]);
    expect(text.match(/\.\.\/shared\/|\/work\/|\/root\/|\{\{[A-Z_]+\}\}/g) ?? []).toEqual([]);
  });

  it('control: the checks find a broken doc', () => {
    const broken = 'Run `make teleport`; see [x](nowhere.md); at 16:53 UTC for issue 13, in ../shared/spec.';
    expect(makeTargets(broken).filter((t) => !TARGETS.has(t))).toEqual(['teleport']);
    expect(broken.match(/\b\d\d:\d\d UTC\b/g)).toHaveLength(1);
    expect(broken.match(/\b[Ii]ssues? #?\d+\b/g)).toHaveLength(1);
    expect(broken.match(/\.\.\/shared\//g)).toHaveLength(1);
  });
});

describe("the guides' commands", () => {
  const labTest = ['test/lab/exercise.sh', 'test/lab/class.sh', 'test/lab/run.sh', 'test/lab/update.sh']
    .map(read)
    .join('\n');

  it('the trainee guide: every sh block runs verbatim in test-lab (it reads them from the guide)', () => {
    const sh = blocks(read('docs/trainee-guide.md')).filter((b) => b.lang === 'sh');
    expect(sh.length).toBeGreaterThan(0);
    expect(labTest).toMatch(/awk '\/\^```sh\$\/ .*docs\/trainee-guide\.md/);
  });

  it.each(['docs/trainee-guide.md', 'docs/trainer-guide.md'])(
    '%s: every command block is sh (run by the lab test) or text (an example)',
    (doc) => {
      expect(blocks(read(doc)).filter((b) => b.lang !== 'sh' && b.lang !== 'text')).toEqual([]);
    },
  );

  it('docs/kubernetes.md: every sh command is `make k8s-render` with settings its test gives it', () => {
    const commands = blocks(read('docs/kubernetes.md'))
      .filter((b) => b.lang === 'sh')
      .flatMap((b) => b.lines);
    expect(commands.length).toBeGreaterThan(0);
    const renderTest = read('test/k8s/render.test.ts');
    for (const command of commands) {
      expect(command).toMatch(/^make k8s-render ROSTER=\S+( [A-Z0-9_]+=\S+)*( > \S+)?$/);
      for (const setting of command.match(/ [A-Z0-9_]+=\S+/g) ?? [])
        if (!setting.startsWith(' ROSTER=')) expect(renderTest).toContain(`'${setting.trim()}'`);
    }
  });

  it('the trainer guide: every sh command is one the lab test runs as a trainer types it', () => {
    const commands = blocks(read('docs/trainer-guide.md'))
      .filter((b) => b.lang === 'sh')
      .flatMap((b) => b.lines);
    expect(commands.length).toBeGreaterThan(0);
    const run = (command: string) =>
      new RegExp(
        `make_lab ${command.replace(/^make /, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( |$)`,
        'm',
      );
    expect(commands.filter((c) => !run(c).test(labTest))).toEqual([]);
  });
});
