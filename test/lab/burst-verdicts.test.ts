/**
 * make test-class-scale's burst checks (burst_verdicts in test/lab/class-shape.sh), fed bursts as the
 * scale test records them: a burst that held passes every check; a burst that ran no check or fewer than
 * its labs, a wrong verdict, a check with no verdict, a container killed for memory, and (strict) an
 * unjudged check or a slowest check past twice the lone one each fail the check that says so.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = new URL('../..', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'burst-verdicts-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** burst_verdicts on `times` (one "lab seconds exit verdict" line a check): its check lines and closing line. */
async function verdicts(k: number, strict: boolean, times: string[], lone: string, oom = 0) {
  const file = join(work, `times-${Math.random().toString(16).slice(2)}`);
  writeFileSync(file, times.map((t) => `${t}\n`).join(''));
  const script = `set -euo pipefail; ROOT=$1; WORK=$2; LOG_TAG=t
    . "$ROOT/test/lib/engine.sh"; . "$ROOT/test/lab/class-shape.sh"
    burst_verdicts "$3" "$4" "$5" "$6" "$7"; summary || true`;
  const { stdout } = await run('bash', [
    '-c',
    script,
    'burst',
    root,
    work,
    String(k),
    strict ? 'strict' : 'lenient',
    file,
    lone,
    String(oom),
  ]);
  const lines = stdout.trimEnd().split('\n');
  return { failed: lines.filter((l) => l.startsWith('  FAIL')), closing: lines.at(-1) };
}

const held = ['t01 10 0 right', 't02 12 0 right', 't03 18 1 right'];
const lone = 't01 9 0 right';

describe('burst_verdicts', () => {
  it('a burst that held: every check passes, strict and lenient', async () => {
    expect(await verdicts(3, true, held, lone)).toEqual({ failed: [], closing: '7 passed, 0 failed' });
    expect(await verdicts(3, false, held, lone)).toEqual({ failed: [], closing: '5 passed, 0 failed' });
  });

  it.each([
    ['no check ran', 3, false, [], lone, 0, /burst of 3: 3 checks ran \(0 recorded\)/],
    ['fewer checks than labs', 3, false, held.slice(0, 2), lone, 0, /3 checks ran \(2 recorded\)/],
    [
      'a wrong verdict',
      3,
      false,
      [...held.slice(0, 2), 't03 18 0 wrong'],
      lone,
      0,
      /no wrong verdict \(wrong: t03\)/,
    ],
    [
      'a check with no verdict',
      3,
      false,
      [...held.slice(0, 2), 't03 18 2 error'],
      lone,
      0,
      /every check ran to a verdict \(none from: t03\)/,
    ],
    [
      'the lone check with no verdict',
      3,
      false,
      held,
      't01 9 2 error',
      0,
      /the lone check ran to a verdict \(error\)/,
    ],
    ['no lone check at all', 3, false, held, '', 0, /the lone check ran to a verdict \(none\)/],
    ['a container killed for memory', 3, false, held, lone, 1, /no container was killed for memory \(1\)/],
    [
      'strict: an unjudged check',
      3,
      true,
      [...held.slice(0, 2), 't03 18 0 unjudged'],
      lone,
      0,
      /every check passes \(1 unjudged/,
    ],
    [
      'strict: the slowest past twice the lone',
      3,
      true,
      [...held.slice(0, 2), 't03 19 1 right'],
      lone,
      0,
      /slowest check \(19 s\) is within 2x the lone one \(9 s\)/,
    ],
  ])('%s fails', async (_what, k, strict, times, loneLine, oom, message) => {
    const { failed, closing } = await verdicts(k, strict, times, loneLine, oom);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatch(message);
    expect(closing).toMatch(/ passed, 1 failed$/);
  });

  it('lenient: an unjudged check (the host busy) is no failure', async () => {
    const { failed } = await verdicts(3, false, [...held.slice(0, 2), 't03 18 0 unjudged'], lone);
    expect(failed).toEqual([]);
  });
});
