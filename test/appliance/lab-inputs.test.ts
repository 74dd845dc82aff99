/**
 * What the host commands are given stays data, and what they write that is secret stays private:
 * every make variable reaches the scripts quoted (a `;` or a backquote never runs; a `$`, which make
 * itself would expand, is refused in one line); a roster naming a system account or the trainer's own
 * login is refused before any sshd setting is written; the board's secret, a lab's settings file, the
 * roster and the sshd settings are 600 under umask 022.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type FakeLab, fakeLab, said, scriptsRoot } from './fake-lab.js';

const run = promisify(execFile);
const Failure = z.object({ code: z.number(), stdout: z.string(), stderr: z.string() });
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

/**
 * `make TARGET VAR=VALUE...` with make's SHELL a wrapper that runs each recipe in bash with `bash`, `node`
 * and `npm` stubbed (each records its arguments, one call a line, the arguments NUL-separated) and
 * $(MAKE) a no-op: what the recipes would run, and with which arguments, without running any of it.
 */
describe('make passes every value as data', () => {
  let dir: string;
  let flag: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'make-inputs-'));
    flag = join(dir, 'RAN');
    const stub = (name: string, extra = '') =>
      writeFileSync(
        join(dir, name),
        `#!/bin/bash\n{ printf '%s\\0' ${name} "$@"; echo; } >>"${dir}/calls"\n${extra}exit 0\n`,
        { mode: 0o755 },
      );
    // The e2e runner's command is run as test/e2e/run.sh runs it (sh -c, API_URL and N8N_URL set).
    stub(
      'bash',
      `if [ "$1" = test/e2e/run.sh ]; then printf 'E2E_WORKFLOWS=%s\\n' "$E2E_WORKFLOWS" >>"${dir}/env"; API_URL=http://api N8N_URL=http://n8n sh -c "$E2E_RUNNER"; fi\n`,
    );
    stub('node');
    stub('npm');
    writeFileSync(join(dir, 'shell'), `#!/bin/bash\nPATH="${dir}:$PATH" exec /bin/bash "$@"\n`, {
      mode: 0o755,
    });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function make(args: string[]) {
    try {
      const r = await run(
        'make',
        [
          '-s',
          '--no-print-directory',
          '-C',
          scriptsRoot,
          ...args,
          `SHELL=${join(dir, 'shell')}`,
          'MAKE=true',
          // The install stamp is the test's own: a prerequisite `build` never touches this checkout's.
          `STAMP=${join(dir, 'stamp')}`,
        ],
        { timeout: 20_000 },
      );
      return { code: 0, stdout: r.stdout, stderr: r.stderr };
    } catch (err) {
      return Failure.parse(err);
    }
  }
  const calls = () =>
    existsSync(join(dir, 'calls'))
      ? readFileSync(join(dir, 'calls'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split('\0').filter((a, i, all) => i < all.length - 1 || a !== ''))
      : [];

  it("make starter STAGE='enrich;touch FILE': the stage as one argument, nothing run", async () => {
    const r = await make(['starter', `STAGE=enrich;touch ${flag}`]);
    expect(r.code).toBe(0);
    expect(existsSync(flag)).toBe(false);
    expect(calls()).toEqual([['bash', 'docker/lab.sh', 'starter', `enrich;touch ${flag}`]]);
  });

  /** A value with each of the shell's ways to run something; ARGS also with a glob. */
  const nasty = (f: string) => `x';touch ${f};'\`touch ${f}\``;
  const args = (f: string) => ['--a', 'b;touch', f, '*'];
  it.each([
    ['TARGET=lab', (f: string) => [['TARGET=lab'], ['bash', 'docker/lab.sh', 'check', nasty(f), ...args(f)]]],
    [
      'TARGET=n8n',
      (f: string) => [
        ['TARGET=n8n', `N8N=http://n8n;touch ${f}`, `API=\`touch ${f}\``],
        [
          'node',
          'dist/app/check/cli.js',
          '--stage',
          nasty(f),
          '--target',
          'n8n',
          '--n8n',
          `http://n8n;touch ${f}`,
          '--api',
          `\`touch ${f}\``,
          ...args(f),
        ],
      ],
    ],
    [
      'TARGET=reference',
      (f: string) => [
        ['TARGET=reference'],
        ['node', 'dist/app/check/cli.js', '--stage', nasty(f), '--target', 'reference', ...args(f)],
      ],
    ],
    [
      'WORKFLOW=...',
      (f: string) => [
        [`WORKFLOW=w.json;touch ${f}`],
        [
          'node',
          'dist/app/check/cli.js',
          '--stage',
          nasty(f),
          '--target',
          'n8n',
          '--api',
          'http://api',
          '--n8n',
          'http://n8n',
          ...args(f),
        ],
      ],
    ],
  ])('make check, %s: STAGE, ARGS and the rest as data', async (branch, rows) => {
    const [given, expected] = rows(flag);
    const r = await make(['check', `STAGE=${nasty(flag)}`, `ARGS=--a b;touch ${flag} *`, ...(given ?? [])]);
    expect(r.stderr).toBe('');
    expect(existsSync(flag)).toBe(false);
    expect(calls().at(-1)).toEqual(expected);
    if (branch.startsWith('WORKFLOW=')) {
      expect(readFileSync(join(dir, 'env'), 'utf8')).toBe(`E2E_WORKFLOWS=w.json;touch ${flag}\n`);
    }
  });

  it('make test-class-scale: N as data', async () => {
    const r = await make(['test-class-scale', `N=2;touch ${flag}`]);
    expect(r.code).toBe(0);
    expect(existsSync(flag)).toBe(false);
    expect(calls().at(-1)).toEqual(['bash', 'test/lab/scale.sh']);
  });

  /** The Makefile alone decides which way make acceptance goes: the scripts are given no TARGET. */
  it.each([
    ['lab', ['bash', 'docker/lab.sh', 'acceptance']],
    ['n8n', ['bash', 'test/e2e/run.sh']],
    [
      'reference',
      [
        'node',
        'dist/app/acceptance/cli.js',
        '--target',
        'reference',
        '--report',
        'reports/acceptance-reference.json',
      ],
    ],
  ])('make acceptance TARGET=%s', async (target, expected) => {
    const r = await make(['acceptance', `TARGET=${target}`]);
    expect(r.code).toBe(0);
    expect(calls().at(-1)).toEqual(expected);
    expect(calls().filter((c) => c[1] === 'docker/lab.sh')).toHaveLength(target === 'lab' ? 1 : 0);
  });

  it.each([
    ['acceptance', `TARGET=n8n;touch FLAG`],
    ['check', `TARGET=n8n;touch FLAG`],
    ['check', 'TARGET=lab n8n'],
    ['acceptance', 'TARGET='],
  ])('make %s %s: refused in one line, nothing run', async (target, given) => {
    const r = await make([target, given.replace('FLAG', flag)]);
    expect(r.code).toBe(2);
    expect(existsSync(flag)).toBe(false);
    expect(r.stderr.split('\n')[0]).toBe(
      `make: unknown TARGET '${given.slice('TARGET='.length).replace('FLAG', flag)}' (lab, n8n or reference)`,
    );
    expect(calls()).toEqual([]);
  });

  it.each(['STAGE', 'LAB', 'ROSTER', 'FROM'])(
    'a %s holding a `$` (make would expand it): refused in one line',
    async (name) => {
      const r = await make(['starter', `${name}=$(shell touch ${flag})`]);
      expect(r.code).toBe(2);
      expect(existsSync(flag)).toBe(false);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(
        `*** ${name} holds a '$': a value given to make is data, and make would expand it; give it without '$'.`,
      );
      expect(calls()).toEqual([]);
    },
  );
});

describe('make roster and class-up refuse a host account that is not a trainee’s', () => {
  let lab: FakeLab;
  beforeEach(() => {
    lab = fakeLab('alice');
  });
  afterEach(() => lab.remove());

  const me = userInfo().username;
  const cases: [string, string, Record<string, string>, RegExp][] = [
    [
      'roster',
      'alice\ndaemon\n',
      {},
      /roster\.txt line 2: 'daemon' is a system account of this machine \(uid 1\): make roster would write sshd settings for it; give the trainee another name$/,
    ],
    [
      'class-up',
      '# the class\nalice\n\nwww-data\n',
      {},
      /roster\.txt line 4: 'www-data' is a system account of this machine \(uid 33\)/,
    ],
    [
      'roster',
      'alice\nsam\n',
      { SUDO_USER: 'sam' },
      /roster\.txt line 2: 'sam' is your own login on this machine: make roster/,
    ],
  ];
  // The trainer's own login (`id -un`), when it could be a lab's name.
  if (/^[a-z]([a-z0-9-]{0,30}[a-z0-9])?$/.test(me)) {
    cases.push(['class-up', `${me}\n`, {}, /roster\.txt line 1: '.*' is your own login on this machine/]);
  }
  it.each(cases)('make %s with %j', async (command, roster, env, reason) => {
    writeFileSync(join(lab.root, 'roster.txt'), roster);
    const r = await lab.lab([command], { ROSTER: join(lab.root, 'roster.txt'), ...env });
    expect(r.code).toBe(1);
    expect(said(r)).toHaveLength(1);
    expect(said(r)[0]).toMatch(reason);
    expect(existsSync(join(lab.root, 'labs', 'sshd'))).toBe(false);
    expect(existsSync(join(lab.root, 'labs', 'class-roster.txt'))).toBe(false);
  });

  it('control: a roster of new names is written, roster and sshd settings 600 (also a roster left 644)', async () => {
    writeFileSync(join(lab.root, 'roster.txt'), 'alice\n');
    writeFileSync(join(lab.root, 'labs', 'class-roster.txt'), 'an older roster\n', { mode: 0o644 });
    chmodSync(join(lab.root, 'labs', 'class-roster.txt'), 0o644);
    const r = await lab.lab(['roster'], { ROSTER: join(lab.root, 'roster.txt') });
    expect(r.code).toBe(0);
    expect(readFileSync(join(lab.root, 'labs', 'sshd', 'alice.conf'), 'utf8')).toMatch(/^Match User alice$/m);
    expect([
      mode(join(lab.root, 'labs', 'class-roster.txt')),
      mode(join(lab.root, 'labs', 'sshd', 'alice.conf')),
    ]).toEqual(['600', '600']);
  });
});

describe('secret files are 600 under umask 022', () => {
  let lab: FakeLab;
  beforeEach(() => {
    lab = fakeLab('alice');
  });
  afterEach(() => lab.remove());

  it('the class board’s secret: written 600, and only the secret on stdout', async () => {
    const r = await lab.fn(['board_secret']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^[0-9a-f]{32}\n$/);
    expect(mode(join(lab.root, 'labs', 'class-board.env'))).toBe('600');
  });

  it('the class board’s secret left 644 by an older version: made 600', async () => {
    const file = join(lab.root, 'labs', 'class-board.env');
    writeFileSync(file, 'CLASS_BOARD_SECRET=00112233445566778899aabbccddeeff\n');
    chmodSync(file, 0o644);
    const r = await lab.fn(['board_secret']);
    expect(r.stdout).toBe('00112233445566778899aabbccddeeff\n');
    expect(mode(file)).toBe('600');
  });

  it('a new lab’s settings file, and the value a lab adds to it later (a stale .new left 644 aside)', async () => {
    const r = await lab.fn(['eval', 'load_settings && ensure_env_file'], { LAB: 'bob' });
    expect(r.code).toBe(0);
    const file = join(lab.root, 'labs', 'bob.env');
    expect(readFileSync(file, 'utf8')).toMatch(/^CONSOLE_SECRET=[0-9a-f]{24}$/m);
    expect(mode(file)).toBe('600');
    writeFileSync(`${file}.new`, '');
    chmodSync(`${file}.new`, 0o644);
    expect((await lab.fn(['set_env_value', 'N8N_API_KEY', 'k-123'], { LAB: 'bob' })).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/^N8N_API_KEY=k-123$/m);
    expect(mode(file)).toBe('600');
  });
});
