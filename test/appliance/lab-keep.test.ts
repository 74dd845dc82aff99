/**
 * Nothing lost, on a lab of fake-docker.sh (n8n's workflows as files, the volumes as folders): a save
 * has a folder of its own even within one second, one save of a lab runs at a time, only what a save
 * made is made private; a restore saves the lab first; `make down` keeps the lab's checks on the host and
 * its override is LAB_FORCE_DOWN=1, not FORCE=1.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeLab, fakeLab, said } from './fake-lab.js';

let lab: FakeLab;
beforeEach(() => {
  lab = fakeLab('alice');
});
afterEach(() => lab.remove());

const savesOf = (l: FakeLab) => join(l.root, 'saved', l.name || '_default');
/** The save folders of the lab, oldest first; nested: folders inside a save that are saves themselves. */
function saves(l: FakeLab): { names: string[]; nested: string[] } {
  const dir = savesOf(l);
  const names = readdirSync(dir)
    .filter((n) => n.startsWith('2'))
    .sort();
  const nested = names.flatMap((n) =>
    readdirSync(join(dir, n))
      .filter((m) => m.startsWith('2') || m.startsWith('.'))
      .map((m) => `${n}/${m}`),
  );
  return { names, nested };
}
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe('make save', () => {
  it('two saves in the same second: two folders side by side, the second sorting after the first', async () => {
    lab.putWorkflow({ id: 'wf1', name: 'Triage' });
    const first = await lab.lab(['save'], { FAKE_DATE: '2026-03-02T101500Z' });
    const second = await lab.lab(['save'], { FAKE_DATE: '2026-03-02T101500Z' });
    const third = await lab.lab(['save'], { FAKE_DATE: '2026-03-02T101500Z' });
    expect([first.code, second.code, third.code]).toEqual([0, 0, 0]);
    expect(saves(lab)).toEqual({
      names: ['2026-03-02T101500Z', '2026-03-02T101500Z-02', '2026-03-02T101500Z-03'],
      nested: [],
    });
    expect(second.stdout).toMatch(/to saved\/alice\/2026-03-02T101500Z-02\/ in \d+ s/);
  });

  it('one save of a lab at a time: a second one says so in one line and writes nothing', async () => {
    lab.putWorkflow({ id: 'wf1', name: 'Triage' });
    const slow = lab.lab(['save'], { FAKE_EXPORT_SLEEP: '3' });
    await new Promise((r) => setTimeout(r, 1000));
    const second = await lab.lab(['save']);
    expect(second.code).toBe(1);
    expect(said(second)).toEqual([
      "lab: could not save lab alice's workflows: another save of lab alice is running (make save, restore or down); wait for it to end, then retry",
    ]);
    expect((await slow).code).toBe(0);
    expect(saves(lab).names).toHaveLength(1);
    const after = await lab.lab(['save']);
    expect(after.code).toBe(0);
  });

  it('makes private only the folders it made: a LAB_SAVE_DIR that was there keeps its mode', async () => {
    lab.putWorkflow({ id: 'wf1', name: 'Triage' });
    const shared = join(lab.root, 'backup');
    mkdirSync(shared, { mode: 0o755 });
    chmodSync(shared, 0o755);
    const r = await lab.lab(['save'], { LAB_SAVE_DIR: shared });
    expect(r.code).toBe(0);
    const save = readdirSync(join(shared, 'alice')).filter((n) => n.startsWith('2'));
    expect([mode(shared), mode(join(shared, 'alice')), mode(join(shared, 'alice', save[0] ?? ''))]).toEqual([
      '755',
      '700',
      '700',
    ]);
    const fresh = join(lab.root, 'new-saves');
    expect((await lab.lab(['save'], { LAB_SAVE_DIR: fresh })).code).toBe(0);
    expect([mode(fresh), mode(join(fresh, 'alice'))]).toEqual(['700', '700']);
  });
});

describe('make restore', () => {
  it('saves the lab first: the edited workflow is in the save it made, the saved one back in the editor', async () => {
    lab.putWorkflow({ id: 'wf1', name: 'Triage v1' });
    expect((await lab.lab(['save'], { FAKE_DATE: '2026-03-02T090000Z' })).code).toBe(0);
    lab.putWorkflow({ id: 'wf1', name: 'Triage v2, edited after the save' });
    const r = await lab.lab(['restore'], { FAKE_DATE: '2026-03-02T093000Z' });
    expect(r.code).toBe(0);
    expect(lab.workflow('wf1')?.name).toBe('Triage v1');
    const made = join(savesOf(lab), '2026-03-02T093000Z');
    expect(readFileSync(join(made, 'workflows', 'wf1.json'), 'utf8')).toContain(
      'Triage v2, edited after the save',
    );
    expect(readFileSync(join(made, 'index.json'), 'utf8')).toContain('"made_by": "restore"');
    expect(said(r).at(-1)).toMatch(
      /^lab: restored 1 workflow\(s\) of saved\/alice\/2026-03-02T090000Z into lab alice, 0 published again, in \d+ s; what it held before is saved in saved\/alice\/2026-03-02T093000Z\/ \(1 workflow\(s\), 0 published\): make restore LAB=alice FROM=saved\/alice\/2026-03-02T093000Z brings it back$/,
    );
  });

  it('twice brings back the same save, not the one the first restore made; FROM= brings that one back', async () => {
    lab.putWorkflow({ id: 'wf1', name: 'Triage v1' });
    await lab.lab(['save'], { FAKE_DATE: '2026-03-02T090000Z' });
    lab.putWorkflow({ id: 'wf1', name: 'Triage v2' });
    await lab.lab(['restore'], { FAKE_DATE: '2026-03-02T093000Z' });
    const again = await lab.lab(['restore'], { FAKE_DATE: '2026-03-02T093000Z' });
    expect(said(again).at(-1)).toMatch(
      /of saved\/alice\/2026-03-02T090000Z into lab alice.* saved in saved\/alice\/2026-03-02T093000Z-02\//,
    );
    expect(lab.workflow('wf1')?.name).toBe('Triage v1');
    const back = await lab.lab(['restore'], { FROM: 'saved/alice/2026-03-02T093000Z' });
    expect(back.code).toBe(0);
    expect(lab.workflow('wf1')?.name).toBe('Triage v2');
  });

  it('restores nothing when the save before it fails, in one line', async () => {
    lab.putWorkflow({ id: 'wf1', name: 'Triage v1' });
    await lab.lab(['save']);
    lab.putWorkflow({ id: 'wf1', name: 'Triage v2' });
    const r = await lab.lab(['restore'], { FAKE_EXPORT_FAIL: '1' });
    expect(r.code).toBe(1);
    expect(said(r)).toEqual([
      "lab: nothing was restored: what lab alice holds now could not be saved first (n8n's export of lab alice failed: Error: connect ECONNREFUSED postgres:5432)",
    ]);
    expect(lab.workflow('wf1')?.name).toBe('Triage v2');
    expect(lab.calls().filter((c) => c.includes('import:workflow') || c.includes(' unpublish '))).toEqual([]);
  });
});

const line = (at: string, stage: string) =>
  `{"at":"${at}","requested":"${stage}","passed":true,"stages":{},"first_failed":null,"first_hint":null,"stopped":false}`;

describe('the check history on the host', () => {
  it('make down keeps the lab’s reports: the last report copied, the history merged, before the volume goes', async () => {
    mkdirSync(lab.hostReports, { recursive: true });
    writeFileSync(
      join(lab.hostReports, 'check-history.jsonl'),
      `${line('2026-03-01T09:00:00.000Z', 'webhook')}\n${line('2026-03-02T09:00:00.000Z', 'validate')}\n`,
    );
    writeFileSync(join(lab.reportsVolume, 'check-last.json'), '{"requested":"enrich"}\n');
    writeFileSync(join(lab.reportsVolume, 'runs.json'), '{"kind":"tutor-runs"}\n');
    writeFileSync(
      join(lab.reportsVolume, 'check-history.jsonl'),
      `${line('2026-03-02T09:00:00.000Z', 'validate')}\n${line('2026-03-02T10:00:00.000Z', 'enrich')}\n`,
    );
    const r = await lab.lab(['down']);
    expect(r.code).toBe(0);
    expect(existsSync(lab.reportsVolume)).toBe(false);
    expect(readFileSync(join(lab.hostReports, 'check-last.json'), 'utf8')).toBe('{"requested":"enrich"}\n');
    // The tutor's runs go with them, for the class report of a removed lab.
    expect(readFileSync(join(lab.hostReports, 'runs.json'), 'utf8')).toBe('{"kind":"tutor-runs"}\n');
    expect(readFileSync(join(lab.hostReports, 'check-history.jsonl'), 'utf8').trim().split('\n')).toEqual([
      line('2026-03-01T09:00:00.000Z', 'webhook'),
      line('2026-03-02T09:00:00.000Z', 'validate'),
      line('2026-03-02T10:00:00.000Z', 'enrich'),
    ]);
    expect(mode(join(lab.hostReports, 'check-history.jsonl'))).toBe('644');
    expect(said(r).at(-1)).toMatch(/its checks are kept in reports\/alice\//);
  });

  it('down, up with a fresh volume, a check, down again: both generations in the host’s history', async () => {
    writeFileSync(
      join(lab.reportsVolume, 'check-history.jsonl'),
      `${line('2026-03-01T09:00:00.000Z', 'webhook')}\n`,
    );
    expect((await lab.lab(['down'])).code).toBe(0);
    // make up again: a fresh, empty reports volume and a running lab.
    mkdirSync(lab.reportsVolume, { recursive: true });
    mkdirSync(join(lab.state, 'volumes', 'soar-lab-alice_postgres-data'));
    writeFileSync(join(lab.state, 'running'), '');
    writeFileSync(join(lab.root, 'labs', 'alice.env'), 'LAB_MODE=exercise\n');
    const check = await lab.lab(['check', 'validate'], { FAKE_CHECK_AT: '2026-03-02T11:00:00.000Z' });
    expect(check.code).toBe(0);
    const afterCheck = readFileSync(join(lab.hostReports, 'check-history.jsonl'), 'utf8').trim().split('\n');
    expect(afterCheck.map((l) => l.slice(7, 31))).toEqual([
      '2026-03-01T09:00:00.000Z',
      '2026-03-02T11:00:00.000Z',
    ]);
    expect((await lab.lab(['down'])).code).toBe(0);
    const afterDown = readFileSync(join(lab.hostReports, 'check-history.jsonl'), 'utf8').trim().split('\n');
    expect(afterDown).toEqual(afterCheck);
  });

  it('a report that cannot be kept removes nothing, in one line', async () => {
    writeFileSync(
      join(lab.reportsVolume, 'check-history.jsonl'),
      `${line('2026-03-01T09:00:00.000Z', 'webhook')}\n`,
    );
    writeFileSync(join(lab.root, 'reports'), 'a file where the reports folder goes');
    const r = await lab.lab(['down']);
    expect(r.code).toBe(1);
    expect(said(r)).toHaveLength(1);
    expect(said(r)[0]).toMatch(
      /^lab: nothing was removed: lab alice's check reports could not be kept in reports\/alice\/ .*LAB_FORCE_DOWN=1$/,
    );
    expect(existsSync(lab.reportsVolume)).toBe(true);
  });
});

describe('make down’s override', () => {
  it('FORCE=1 is refused in one line naming LAB_FORCE_DOWN=1, and nothing is saved or removed', async () => {
    lab.putWorkflow({ id: 'wf1', name: 'Triage' });
    const r = await lab.lab(['down'], { FORCE: '1', FAKE_EXPORT_FAIL: '1' });
    expect(r.code).toBe(1);
    expect(said(r)).toEqual([
      'lab: FORCE=1 is not read: the override that removes a lab whose save failed is LAB_FORCE_DOWN=1; unset FORCE and retry',
    ]);
    expect(existsSync(join(lab.state, 'volumes', 'soar-lab-alice_postgres-data'))).toBe(true);
    expect(existsSync(join(lab.root, 'labs', 'alice.env'))).toBe(true);
    expect(lab.calls().filter((c) => / down /.test(c))).toEqual([]);
  });

  it('class-down with FORCE=1: the same line, before any lab', async () => {
    writeFileSync(join(lab.root, 'roster.txt'), 'alice\nbob\n');
    const r = await lab.lab(['class-down'], { FORCE: '1', ROSTER: join(lab.root, 'roster.txt') });
    expect(said(r)).toEqual([
      'lab: FORCE=1 is not read: the override that removes a lab whose save failed is LAB_FORCE_DOWN=1; unset FORCE and retry',
    ]);
    expect(existsSync(join(lab.root, 'labs', 'alice.env'))).toBe(true);
  });

  it('a failed save: refused, naming LAB_FORCE_DOWN=1; with it, the lab goes (its checks kept)', async () => {
    lab.putWorkflow({ id: 'wf1', name: 'Triage' });
    writeFileSync(
      join(lab.reportsVolume, 'check-history.jsonl'),
      `${line('2026-03-01T09:00:00.000Z', 'webhook')}\n`,
    );
    const refused = await lab.lab(['down'], { FAKE_EXPORT_FAIL: '1' });
    expect(said(refused)).toEqual([
      "lab: nothing was removed: lab alice's workflows could not be saved (n8n's export of lab alice failed: Error: connect ECONNREFUSED postgres:5432); to remove it anyway, losing them: make down LAB=alice LAB_FORCE_DOWN=1",
    ]);
    expect(existsSync(join(lab.root, 'labs', 'alice.env'))).toBe(true);
    const forced = await lab.lab(['down'], { FAKE_EXPORT_FAIL: '1', LAB_FORCE_DOWN: '1' });
    expect(forced.code).toBe(0);
    expect(existsSync(join(lab.root, 'labs', 'alice.env'))).toBe(false);
    expect(readFileSync(join(lab.hostReports, 'check-history.jsonl'), 'utf8')).toContain('"webhook"');
  });
});
