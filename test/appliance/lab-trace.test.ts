/**
 * LAB_TRACE=1 traces every host command: docker/lab.sh's own and those of the lab.sh it runs for each lab
 * of a class, each line naming its file, line and function; the trace goes to stderr and never into what
 * the commands capture and print, so that everything else they say is as without it. make passes it on,
 * to the Kubernetes scripts as their TRACE=1.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeLab, fakeLab, said, scriptsRoot } from './fake-lab.js';

const run = promisify(execFile);

let lab: FakeLab;
beforeEach(() => {
  lab = fakeLab('alice');
  lab.putWorkflow({ id: 'wf1', name: 'Triage' });
});
afterEach(() => lab.remove());

/** Trace lines: `+ ` (`++ ` and deeper in a subshell), then file:line and function. */
const traced = (text: string) => text.split('\n').filter((l) => /^\++ /.test(l));
/** Whether LINES appear in TEXT's lines in this order (a traced value of several lines adds lines). */
const inOrder = (lines: string[], text: string) => {
  let at = 0;
  for (const line of text.split('\n')) if (line === lines[at]) at += 1;
  return at === lines.length;
};

describe('LAB_TRACE=1', () => {
  it('make class-save: the class command and each lab’s own lab.sh traced, with file, line and function', async () => {
    writeFileSync(join(lab.root, 'roster.txt'), 'alice\n');
    const r = await lab.lab(['class-save'], { ROSTER: join(lab.root, 'roster.txt'), LAB_TRACE: '1' });
    expect(r.code).toBe(0);
    const trace = traced(r.stderr);
    expect(trace).toContainEqual(expect.stringMatching(/^\+ docker\/lab\.sh:\d+ main: cmd_class_each save$/));
    expect(trace).toContainEqual(
      expect.stringMatching(/^\+ docker\/lab\/class\.sh:\d+ lab_sh: bash .*\/docker\/lab\.sh save$/),
    );
    // The lab's own lab.sh, a process of its own: its save traced too.
    expect(trace).toContainEqual(expect.stringMatching(/^\+ docker\/lab\.sh:\d+ main: cmd_save$/));
    expect(trace).toContainEqual(expect.stringMatching(/^\+\+ docker\/lab\/keep\.sh:\d+ lab_save: /));
    expect(said({ ...r, stderr: '' })).toEqual([
      expect.stringMatching(
        /^lab: saved lab alice's workflows \(1 workflow\(s\), 0 published, .*\) to saved\/alice\/[0-9TZ-]+\/ in \d+ s; make restore LAB=alice brings them back$/,
      ),
    ]);
  });

  it('what a command captures holds no trace: make reset says the tool’s answer as without it', async () => {
    const plain = await lab.lab(['reset']);
    const r = await lab.lab(['reset'], { LAB_TRACE: '1' });
    expect([plain.code, r.code]).toEqual([0, 0]);
    expect(r.stdout).toBe(plain.stdout);
    expect(r.stdout).toContain('lab: stop-runs');
    expect(traced(r.stderr).length).toBeGreaterThan(10);
    expect(traced(plain.stderr)).toEqual([]);
  });

  it('a refusal reads the same: the line and the tool’s output below it, the trace aside', async () => {
    const plain = await lab.lab(['down'], { FAKE_EXPORT_FAIL: 'stack' });
    const r = await lab.lab(['down'], { FAKE_EXPORT_FAIL: 'stack', LAB_TRACE: '1' });
    expect([plain.code, r.code]).toEqual([1, 1]);
    expect(inOrder(said(plain), r.stderr)).toBe(true);
    expect(r.stderr.split('\n').find((l) => l.startsWith('lab: '))).toBe(said(plain)[0]);
    expect(said(plain)[0]).toMatch(/^lab: nothing was removed: lab alice's workflows could not be saved/);
  });

  it.each([
    ['k8s-render', 'render.sh'],
    ['k8s-verify', 'verify.sh'],
  ])('make %s passes it on as the script’s TRACE=1', async (target, script) => {
    const dry = async (...vars: string[]) =>
      (
        await run('make', [
          '-n',
          '-s',
          '--no-print-directory',
          '-C',
          scriptsRoot,
          target,
          'ROSTER=r.txt',
          ...vars,
        ])
      ).stdout;
    expect(await dry('LAB_TRACE=1')).toBe(`TRACE=1 bash deploy/kubernetes/${script} 'r.txt'\n`);
    expect(await dry()).toBe(`bash deploy/kubernetes/${script} 'r.txt'\n`);
  });
});
