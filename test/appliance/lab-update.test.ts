/**
 * A lab of an earlier version brought to this checkout's (docker/lab/update.sh), on a lab of
 * fake-docker.sh: which way each version goes, the one line `make up` says, and nothing changed where the
 * update cannot be made (a newer lab, a save that fails before a move). The real engine's proof, a lab made
 * by the previous version's checkout and updated with its workflows, is test/lab/update.sh (make test-lab).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LAB_VERSION } from '../../app/lab-settings/settings.js';
import { type FakeLab, fakeLab, said } from './fake-lab.js';

let lab: FakeLab;
beforeEach(() => {
  lab = fakeLab('alice');
});
afterEach(() => lab.remove());

const envFile = () => join(lab.root, 'labs', 'alice.env');
const record = (version: string) =>
  writeFileSync(envFile(), `${readFileSync(envFile(), 'utf8')}LAB_VERSION=${version}\n`);
const recorded = () => readFileSync(envFile(), 'utf8').match(/^LAB_VERSION=(.*)$/m)?.[1];
const downs = () => lab.calls().filter((c) => / down /.test(` ${c} `));

describe('update_way: what a checkout of one version does with a lab of another', () => {
  it.each([
    ['1.1.0', '1.1.0', 'same'],
    ['1.1.0', '1.0.0', 'update'],
    ['1.10.0', '1.9.3', 'update'],
    ['1.9.0', '1.10.0', 'newer'],
    ['2.0.0', '1.4.2', 'move'],
    ['1.1.0', '0.9.0', 'move'],
    ['1.1.0', '2.0.0', 'newer'],
    ['1.1.1', '1.1.0', 'update'],
  ])('checkout %s, lab %s: %s', async (checkout, labVersion, way) => {
    const r = await lab.fn(['eval', `LAB_VERSION=${checkout}; update_way ${labVersion}`]);
    expect(r.stdout.trim()).toBe(way);
  });
});

describe('make up on a lab of another version', () => {
  it('a lab that recorded no version (made by 1.0.0) is updated in place: one line, its volumes kept, its version recorded', async () => {
    lab.putWorkflow({ id: 'wf1', name: 'Triage', active: true });
    const r = await lab.lab(['up']);
    expect(r.code, said(r).join('\n')).toBe(0);
    const lines = said(r).filter((l) => /^lab: (updated|moved) /.test(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`updated lab alice in place from 1.0.0 to ${LAB_VERSION}`);
    expect(recorded()).toBe(LAB_VERSION);
    expect(downs()).toEqual([]);
    expect(lab.workflow('wf1')?.name).toBe('Triage');
    expect(lab.calls().some((c) => /compose .* up -d --remove-orphans --wait /.test(c))).toBe(true);
  });

  it("a lab with no record whose services are not 1.0.0's (Redis and a worker) is taken for 0.9.0, another layout: moved", async () => {
    lab.putWorkflow({ id: 'wf1', name: 'Triage' });
    const r = await lab.lab(['up'], { FAKE_SERVICES: 'console mock-api n8n n8n-worker postgres redis' });
    expect(r.code, said(r).join('\n')).toBe(0);
    expect(said(r).find((l) => l.startsWith('lab: moved '))).toMatch(/^lab: moved lab alice from 0\.9\.0 /);
    expect(lab.workflow('wf1')?.name).toBe('Triage');
  });

  it('a lab of this version: nothing updated, its version said', async () => {
    record(LAB_VERSION);
    const r = await lab.lab(['up']);
    expect(r.code, said(r).join('\n')).toBe(0);
    expect(said(r).filter((l) => /^lab: (updated|moved) /.test(l))).toEqual([]);
    expect(said(r).join('\n')).toContain(`Up: lab alice, version ${LAB_VERSION},`);
    expect(lab.calls().some((c) => /compose .* up -d --remove-orphans --wait /.test(c))).toBe(false);
  });

  it('a lab of a newer version is refused, nothing changed', async () => {
    record('9.0.0');
    const r = await lab.lab(['up']);
    expect(r.code).toBe(1);
    expect(said(r)[0]).toContain(
      `runs version 9.0.0, newer than this checkout's ${LAB_VERSION}: nothing changed`,
    );
    expect(lab.calls().filter((c) => /compose .* (up|build|down)( |$)/.test(c))).toEqual([]);
    expect(recorded()).toBe('9.0.0');
  });

  it('an image that does not build: nothing changed, and why', async () => {
    const r = await lab.lab(['up'], { FAKE_COMPOSE_FAIL: 'build' });
    expect(r.code).toBe(1);
    expect(said(r)[0]).toBe(
      `lab: nothing changed: lab alice stays at 1.0.0; the image of ${LAB_VERSION} could not be built (docker compose build mock-api)`,
    );
    expect(lab.calls().filter((c) => /compose .* (up|down)( |$)/.test(c))).toEqual([]);
    expect(recorded()).toBeUndefined();
  });

  it('a lab of another layout whose save fails: nothing removed, nothing changed, and why', async () => {
    record('0.9.0');
    lab.putWorkflow({ id: 'wf1', name: 'Triage' });
    const r = await lab.lab(['up'], { FAKE_EXPORT_FAIL: '1' });
    expect(r.code).toBe(1);
    expect(said(r)[0]).toMatch(
      /^lab: nothing changed: lab alice stays at 0\.9\.0; its workflows could not be saved before the move/,
    );
    expect(downs()).toEqual([]);
    expect(lab.workflow('wf1')?.name).toBe('Triage');
    expect(recorded()).toBe('0.9.0');
  });

  it('a lab of another layout is saved, made anew and restored: one line naming the save', async () => {
    record('0.9.0');
    lab.putWorkflow({ id: 'wf1', name: 'Triage', active: true });
    writeFileSync(join(lab.reportsVolume, 'check-history.jsonl'), '{"at":"2026-01-01T00:00:00.000Z"}\n');
    const r = await lab.lab(['up']);
    expect(r.code, said(r).join('\n')).toBe(0);
    const line = said(r).find((l) => l.startsWith('lab: moved '));
    expect(line).toMatch(
      new RegExp(
        `^lab: moved lab alice from 0\\.9\\.0 to ${LAB_VERSION.replaceAll('.', '\\.')} \\(another layout\\)`,
      ),
    );
    expect(line).toContain('1 workflow(s) restored (1 published)');
    expect(downs()).toHaveLength(1);
    expect(lab.workflow('wf1')?.name).toBe('Triage');
    expect(readFileSync(join(lab.hostReports, 'check-history.jsonl'), 'utf8')).toContain('2026-01-01');
    expect(readFileSync(join(lab.reportsVolume, 'check-history.jsonl'), 'utf8')).toContain('2026-01-01');
    expect(recorded()).toBe(LAB_VERSION);
  });
});

describe('make start and make class-up on labs of an earlier version', () => {
  it('make start (a lab stopped for the night, then a git pull) updates it first, in one line', async () => {
    const r = await lab.lab(['start']);
    expect(r.code, said(r).join('\n')).toBe(0);
    expect(said(r).filter((l) => l.startsWith('lab: updated lab alice in place from 1.0.0 '))).toHaveLength(
      1,
    );
    expect(recorded()).toBe(LAB_VERSION);
  });
});

describe('make status', () => {
  it("prints the checkout's version and each lab's with what make up does", async () => {
    const r = await lab.lab(['status'], { LAB: '' });
    expect(r.code, said(r).join('\n')).toBe(0);
    expect(said(r)[0]).toBe(
      `this checkout: version ${LAB_VERSION} (CHANGELOG.md says what each version changed)`,
    );
    expect(said(r)[1]).toContain(
      `lab alice: version 1.0.0, this checkout ${LAB_VERSION}: make up LAB=alice updates it in place`,
    );
  });
});

/**
 * A move interrupted at each of its steps (fake-docker.sh kills the whole command there, as Ctrl-C or a
 * power cut would), then the next command: the lab ends with everything it held, never an empty lab
 * "updated in place".
 */
describe('a move interrupted, then finished by the next command', () => {
  const CIPHERTEXT = 'U2FsdGVkX1+trainee-own-secret-encrypted-with-the-lab-key';
  const history = '{"at":"2026-01-01T00:00:00.000Z","requested":"webhook","passed":true}\n';
  const moving = () => {
    const text = readFileSync(envFile(), 'utf8');
    return {
      save: text.match(/^LAB_MOVE_SAVE=(.*)$/m)?.[1],
      from: text.match(/^LAB_MOVE_FROM=(.*)$/m)?.[1],
    };
  };
  const held = () => {
    record('0.9.0');
    lab.putWorkflow({ id: 'wf1', name: 'Triage', active: true });
    lab.putWorkflow({ id: 'wf2', name: 'Draft' });
    lab.putCredential({ id: 'cr1', name: 'Identity API key', data: CIPHERTEXT });
    writeFileSync(join(lab.reportsVolume, 'check-history.jsonl'), history);
  };
  const expectWhole = (r: { stdout: string; stderr: string; code: number }) => {
    expect(r.code, said(r).join('\n')).toBe(0);
    expect(said(r).filter((l) => /^lab: updated /.test(l))).toEqual([]);
    expect(said(r).find((l) => l.startsWith('lab: moved '))).toMatch(
      /^lab: moved lab alice from 0\.9\.0 to .*: saved to saved\/alice\/[^ ]+\/, made anew, 2 workflow\(s\) restored \(1 published\), 1 credential\(s\)/,
    );
    expect(lab.workflow('wf1')?.name).toBe('Triage');
    expect(lab.workflow('wf2')?.name).toBe('Draft');
    expect(lab.calls().some((c) => / republish wf1$/.test(c))).toBe(true);
    expect(lab.credential('cr1')).toMatchObject({ name: 'Identity API key', data: CIPHERTEXT });
    expect(readFileSync(join(lab.reportsVolume, 'check-history.jsonl'), 'utf8')).toContain(history.trim());
    expect(recorded()).toBe(LAB_VERSION);
    expect(moving()).toEqual({ save: undefined, from: undefined });
  };

  it("a move carries the trainee's credentials, as n8n encrypted them with the lab's key", async () => {
    held();
    const r = await lab.lab(['up']);
    expectWhole(r);
  });

  it.each([
    ['down', 'after the save, before anything is removed'],
    ['removed', 'after the removal'],
    ['import', 'during the import'],
  ])(
    'killed at %s (%s), then make up: the same workflows, ids, published state, credentials and checks',
    async (point) => {
      held();
      const killed = await lab.labKilled(['up'], { FAKE_KILL_AT: point });
      expect(killed.signal ?? killed.code).not.toBe(0);
      // Recorded before anything was removed: the save and the version moved from.
      const { save, from } = moving();
      expect(from).toBe('0.9.0');
      expect(readFileSync(join(save ?? '/nonexistent', 'index.json'), 'utf8')).toContain('"id":"wf1"');
      expect(recorded()).toBe('0.9.0');
      expectWhole(await lab.lab(['up']));
    },
  );

  it('make status on a lab whose move was cut short: one line says where its work is and what to run', async () => {
    held();
    await lab.labKilled(['up'], { FAKE_KILL_AT: 'removed' });
    const r = await lab.lab(['status'], { LAB: '' });
    expect(r.code, said(r).join('\n')).toBe(0);
    const line = said(r).find((l) => l.includes('lab alice:'));
    expect(line).toMatch(
      /^ {2}lab alice: an unfinished move from 0\.9\.0 to .*: its workflows and credentials are saved in saved\/alice\/[^ ]+\/; make up LAB=alice finishes it; no containers$/,
    );
  });

  it('make class-up on a class whose lab’s move was cut short finishes the move', async () => {
    held();
    await lab.labKilled(['up'], { FAKE_KILL_AT: 'removed' });
    writeFileSync(join(lab.root, 'roster.txt'), 'alice\n');
    const r = await lab.lab(['class-up'], { LAB: '', ROSTER: join(lab.root, 'roster.txt') });
    expectWhole(r);
  });

  it('make start on a lab whose move was cut short finishes the move', async () => {
    held();
    await lab.labKilled(['up'], { FAKE_KILL_AT: 'removed' });
    expectWhole(await lab.lab(['start']));
  });
});

describe('make down on a lab whose move was cut short', () => {
  it('removes nothing, names the save and says what to run', async () => {
    record('0.9.0');
    lab.putWorkflow({ id: 'wf1', name: 'Triage' });
    await lab.labKilled(['up'], { FAKE_KILL_AT: 'removed' });
    const r = await lab.lab(['down']);
    expect(r.code).toBe(1);
    expect(said(r)[0]).toMatch(
      /^lab: nothing was removed: lab alice's move to .* was cut short and its work is in saved\/alice\/[^ ]+\/: make up LAB=alice finishes it first; to remove it anyway: make down LAB=alice LAB_FORCE_DOWN=1$/,
    );
    expect(readFileSync(envFile(), 'utf8')).toMatch(/^LAB_MOVE_SAVE=/m);
    expect((await lab.lab(['up'])).code).toBe(0);
    expect(lab.workflow('wf1')?.name).toBe('Triage');
  });
});
