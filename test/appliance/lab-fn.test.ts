/**
 * test/appliance/lab-fn.sh, through which the lab scripts' unit tests run one function of docker/lab.sh's
 * parts, sources the parts lab.sh sources, read from lab.sh itself: a part lab.sh gains needs no test edit.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeLab, fakeLab, scriptsRoot } from './fake-lab.js';
import { labCommands, labParts } from './lab-sh-text.js';

const labDir = join(scriptsRoot, 'docker/lab');
const labScript = readFileSync(join(scriptsRoot, 'docker/lab.sh'), 'utf8');
const parts = labParts(labScript);
/** The functions a part defines (`name() {`, at the start of a line). */
const functionsOf = (part: string) =>
  [...readFileSync(join(labDir, part), 'utf8').matchAll(/^([a-z_][a-z0-9_]*)\(\) \{/gm)].map(
    (m) => m[1] ?? '',
  );

describe("docker/lab.sh's parts, read from it", () => {
  it('are every shell file of docker/lab/ that no other part sources, common.sh first', () => {
    const files = readdirSync(labDir).filter((f) => f.endsWith('.sh'));
    const sourcedByParts = new Set(
      files.flatMap((f) =>
        [
          ...readFileSync(join(labDir, f), 'utf8').matchAll(
            /^ *\. "\$ROOT\/docker\/lab\/([a-z0-9.-]+\.sh)"$/gm,
          ),
        ].map((m) => m[1] ?? ''),
      ),
    );
    expect([...parts].sort()).toEqual(files.filter((f) => !sourcedByParts.has(f)).sort());
    expect(parts[0]).toBe('common.sh');
    expect(parts).toEqual(expect.arrayContaining(['lifecycle.sh', 'keep.sh', 'class.sh', 'bundle.sh']));
  });

  it('cannot be read from a lab.sh without them: the reader says so', () => {
    expect(() => labParts(labScript.replaceAll('. "$ROOT/docker/lab/', 'source "$ROOT/docker/lab/'))).toThrow(
      /sources no part/,
    );
    expect(() => labCommands('main() {\n  :\n}\n')).toThrow(/dispatches no command/);
    expect(labCommands(labScript).length).toBeGreaterThan(20);
  });
});

describe('test/appliance/lab-fn.sh', () => {
  let lab: FakeLab;
  beforeEach(() => {
    lab = fakeLab('alice');
  });
  afterEach(() => lab.remove());

  it('defines the functions of every part lab.sh sources', async () => {
    const functions = parts.flatMap(functionsOf);
    expect(functions.length).toBeGreaterThan(parts.length);
    const r = await lab.fn(['declare', '-F', ...functions]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual(functions);
  });

  it('follows lab.sh: a part left out of it is left out of lab-fn.sh too', async () => {
    const [first = '', left = ''] = parts;
    const [kept] = functionsOf(first);
    const [gone] = functionsOf(left);
    if (gone === undefined || kept === undefined) throw new Error(`no function in ${first} or ${left}`);
    const script = join(lab.root, 'docker', 'lab.sh');
    writeFileSync(script, labScript.replace(`. "$ROOT/docker/lab/${left}"\n`, ''));
    expect((await lab.fn(['declare', '-F', kept])).code).toBe(0);
    expect((await lab.fn(['declare', '-F', gone])).code).toBe(1);
  });

  it('refuses in one line when it cannot read the parts from lab.sh', async () => {
    const script = join(lab.root, 'docker', 'lab.sh');
    writeFileSync(script, labScript.replaceAll('. "$ROOT/docker/lab/', 'source "$ROOT/docker/lab/'));
    const r = await lab.fn(['declare', '-F', 'lab_identity']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^lab-fn\.sh: docker\/lab\.sh sources no part of docker\/lab\//),
    ]);
  });
});
