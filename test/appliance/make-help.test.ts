/**
 * `make help`, run for real: a trainer's commands first, then the developers', each group under its
 * heading; every target with a `## ` comment in exactly one group (the comment is the one source of its
 * line), every other target one of the ways `make check` and `make acceptance` go; the values in the
 * comments shown as this make sees them, never as `$(NAME)`.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { scriptsRoot } from './fake-lab.js';

const run = promisify(execFile);

/** The commands a trainer types (docs/trainer-guide.md), the first group of `make help`. */
const TRAINERS = [
  'up',
  'down',
  'reset',
  'check',
  'starter',
  'save',
  'restore',
  'status',
  'stop',
  'start',
  'solution',
  'acceptance',
  'health',
  'state',
  'logs',
  'class-up',
  'class-down',
  'class-save',
  'class-stop',
  'class-start',
  'class-restore',
  'class-report',
  'class-board',
  'roster',
  'bundle',
  'help',
  'k8s-render',
  'k8s-verify',
];
/** The ways `make check` and `make acceptance` go, decided by the Makefile: targets without a line. */
const WAYS = [
  'check-lab',
  'check-n8n',
  'check-reference',
  'check-workflow',
  'check-unknown',
  'acceptance-lab',
  'acceptance-n8n',
  'acceptance-reference',
  'acceptance-unknown',
];

const makefiles = ['Makefile', 'deploy/kubernetes/k8s.mk'].map((f) =>
  readFileSync(join(scriptsRoot, f), 'utf8'),
);
const targets = (withLine: boolean) =>
  makefiles.flatMap((text) =>
    [...text.matchAll(/^([a-z0-9-]+(?: [a-z0-9-]+)*):(.*)$/gm)]
      .filter((m) => (m[2] ?? '').includes('## ') === withLine)
      .flatMap((m) => (m[1] ?? '').split(' ')),
  );

async function help(...vars: string[]) {
  const { stdout } = await run('make', ['-s', '--no-print-directory', '-C', scriptsRoot, 'help', ...vars], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    timeout: 20_000,
  });
  return stdout;
}

/** The groups of `make help`: each heading (a line of its own ending in `:`) with its targets. */
function groups(text: string) {
  const found: { heading: string; targets: string[] }[] = [];
  for (const line of text.split('\n')) {
    const target = /^ {2}([a-z0-9-]+) /.exec(line);
    if (target) found.at(-1)?.targets.push(target[1] ?? '');
    else if (/^\S.*:$/.test(line)) found.push({ heading: line, targets: [] });
  }
  return found;
}

describe('make help', () => {
  it('two groups, a trainer’s commands first, then the developers’, each target with a line in one of them', async () => {
    const text = await help();
    const found = groups(text);
    expect(found.map((g) => g.heading.split(' (')[0])).toEqual(['For trainers', 'For developers']);
    const listed = found.flatMap((g) => g.targets);
    expect([...listed].sort()).toEqual([...targets(true)].sort());
    expect(new Set(listed).size).toBe(listed.length);
    expect([...(found[0]?.targets ?? [])].sort()).toEqual([...TRAINERS].sort());
    expect(found[0]?.targets.slice(0, 4)).toEqual(['up', 'down', 'reset', 'check']);
    expect(text).not.toContain('$(');
    // The header names the trace switch.
    expect(text.split('\n')[0]).toContain('LAB_TRACE=1 traces every host command');
  });

  it('every target without a line is one of the ways make check and make acceptance go', () => {
    expect([...targets(false)].sort()).toEqual([...WAYS].sort());
  });

  it('shows the values as this make sees them: make run on HOST:PORT, given or default', async () => {
    expect(await help()).toMatch(/^ {2}run +serve the mock API on 127\.0\.0\.1:8081$/m);
    const given = await help('HOST=0.0.0.0', 'PORT=9000', 'N=4');
    expect(given).toMatch(/^ {2}run +serve the mock API on 0\.0\.0\.0:9000$/m);
    expect(given).toMatch(/^ {2}test-class-scale +how many trainees one host holds: N=4 labs/m);
  });
});
