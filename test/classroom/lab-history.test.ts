/**
 * A lab's check history as the class report and the board read it: the lab's own reports volume and the
 * host's copy (reports/<lab>/, kept by every `make check` and before every removal) merged, every check
 * once, oldest first; for a lab that is gone, the host's copy alone.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { historyLineOf } from '../../app/check-report/history.js';
import { ClassInputSchema } from '../../app/classroom/class-input.js';
import { buildClassReport } from '../../app/classroom/class-report.js';
import { LabFolders, mergeHistories } from '../../app/classroom/lab-folders.js';
import { renderHistoryCsv } from '../../app/classroom/render-csv.js';
import type { StageName } from '../../app/stages/stages.js';
import { type ClassOnDisk, classOnDisk, writeStates } from './board-fixture.js';
import { checkReport } from './class-fixture.js';

const lineAt = (at: string, stage: StageName) =>
  JSON.stringify(historyLineOf(checkReport(stage, { finishedAt: at })));
const MON = lineAt('2026-11-23T09:00:00.000Z', 'webhook');
const TUE = lineAt('2026-11-24T09:00:00.000Z', 'validate');
const TUE_LATER = lineAt('2026-11-24T15:00:00.000Z', 'enrich');
const WED = lineAt('2026-11-25T09:00:00.000Z', 'decide');

let on: ClassOnDisk;
beforeEach(async () => {
  on = classOnDisk(['alice', 'bob']);
  await writeStates(on, [
    { name: 'alice', state: 'running' },
    { name: 'bob', state: 'absent' },
  ]);
});
afterEach(() => on.remove());

async function history(file: 'labs' | 'saved', name: string, lines: string[]) {
  await mkdir(join(on[file], name), { recursive: true });
  await writeFile(join(on[file], name, 'check-history.jsonl'), `${lines.join('\n')}\n`);
}
async function historyOf(folders: LabFolders, name: string) {
  return (await folders.classInput()).labs.find((l) => l.name === name)?.history;
}

describe('a lab’s check history: its volume and the host’s copy merged', () => {
  it('a lab up again with a fresh volume keeps the older checks: the host’s lines, then the new ones', async () => {
    await history('saved', 'alice', [MON, TUE]);
    await history('labs', 'alice', [WED]);
    const folders = new LabFolders({ labs: on.labs, saved: on.saved, states: on.states });
    expect(await historyOf(folders, 'alice')).toEqual([MON, TUE, WED]);
  });

  it('each check once, in time order, where the two hold some of the same lines', async () => {
    await history('saved', 'alice', [MON, TUE, TUE_LATER]);
    await history('labs', 'alice', [TUE, WED, TUE_LATER]);
    const folders = new LabFolders({ labs: on.labs, saved: on.saved, states: on.states });
    expect(await historyOf(folders, 'alice')).toEqual([MON, TUE, TUE_LATER, WED]);
  });

  it('a lab that is gone: the host’s copy, in the class history CSV', async () => {
    await rm(join(on.labs, 'bob'), { recursive: true });
    await history('saved', 'bob', [MON, TUE]);
    const folders = new LabFolders({ labs: on.labs, saved: on.saved, states: on.states });
    const csv = renderHistoryCsv(buildClassReport(ClassInputSchema.parse(await folders.classInput())))
      .trimEnd()
      .split('\r\n');
    expect(csv.filter((l) => l.startsWith('bob,')).map((l) => l.split(',')[1])).toEqual([
      '2026-11-23T09:00:00.000Z',
      '2026-11-24T09:00:00.000Z',
    ]);
  });

  it('a new check landing in the volume is read at once (the merge is not kept past a change)', async () => {
    await history('saved', 'alice', [MON]);
    await history('labs', 'alice', [TUE]);
    const folders = new LabFolders({ labs: on.labs, saved: on.saved, states: on.states });
    expect(await historyOf(folders, 'alice')).toEqual([MON, TUE]);
    await history('labs', 'alice', [TUE, WED]);
    expect(await historyOf(folders, 'alice')).toEqual([MON, TUE, WED]);
  });
});

describe('mergeHistories', () => {
  it('keeps a line it cannot read (first: the report counts it), drops blank ones, keeps the newest 5000', () => {
    expect(mergeHistories([TUE, '{"at":', ''], [MON, TUE])).toEqual(['{"at":', MON, TUE]);
    const many = Array.from({ length: 5001 }, (_, i) =>
      JSON.stringify({ at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString() }),
    );
    const merged = mergeHistories(many.slice(0, 3000), many.slice(2000));
    expect(merged).toHaveLength(5000);
    expect(merged[0]).toBe(many[1]);
    expect(merged.at(-1)).toBe(many[5000]);
  });
});
