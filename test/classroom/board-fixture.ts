/**
 * A class on disk as the board sees it: one reports folder per lab (what the lab's `lab-reports` volume
 * holds), the host's states file, and a check landing in a lab the way the checker writes it
 * (check-last.json whole, then one history line), and the tutor's runs.json as the console rewrites it.
 * Also a board served over real HTTP on loopback.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  appendHistory,
  HISTORY_FILE,
  historyLineOf,
  writeFileAtomic,
} from '../../app/check-report/history.js';
import type { CheckReport } from '../../app/check-report/report.js';
import type { BoardDeps } from '../../app/classroom/board-app.js';
import { createBoardApp } from '../../app/classroom/board-app.js';
import type { StatesFile } from '../../app/classroom/class-input.js';
import { LabFolders } from '../../app/classroom/lab-folders.js';
import { RUNS_FILE, type RunsFile } from '../../app/runs/file.js';
import { type Served, serveOnLoopback } from '../helpers/loopback-http.js';

export type { Served };

export interface ClassOnDisk {
  root: string;
  labs: string;
  saved: string;
  states: string;
  remove(): void;
}

export function classOnDisk(names: readonly string[]): ClassOnDisk {
  const root = mkdtempSync(join(tmpdir(), 'soar-board-'));
  const on: ClassOnDisk = {
    root,
    labs: join(root, 'labs'),
    saved: join(root, 'saved'),
    states: join(root, 'state', 'states.json'),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
  for (const name of names) mkdirSync(join(on.labs, name), { recursive: true });
  mkdirSync(join(root, 'state'));
  return on;
}

type StateLine = StatesFile['labs'][number];

/** The host's states file, written as board.sh writes it (temp file, then a rename). */
export async function writeStates(
  on: ClassOnDisk,
  labs: readonly (Pick<StateLine, 'name' | 'state'> & Partial<StateLine>)[],
  at: Date = new Date(),
): Promise<void> {
  await writeFileAtomic(on.states, JSON.stringify({ at: at.toISOString(), labs }));
}

/** A check landing in a lab: what the checker writes (run-check.ts), in the same order. */
export async function landCheck(on: ClassOnDisk, name: string, report: CheckReport): Promise<void> {
  const folder = join(on.labs, name);
  await writeFileAtomic(join(folder, 'check-last.json'), `${JSON.stringify(report, null, 2)}\n`);
  await appendHistory(join(folder, HISTORY_FILE), historyLineOf(report));
}

/** The tutor's runs.json written whole (a temp file, then a rename), in the lab's folder or the host's. */
export async function landRuns(
  on: ClassOnDisk,
  name: string,
  file: RunsFile,
  where: 'labs' | 'saved' = 'labs',
): Promise<void> {
  await writeFileAtomic(join(on[where], name, RUNS_FILE), `${JSON.stringify(file, null, 2)}\n`);
}

export async function writeRaw(on: ClassOnDisk, name: string, file: string, text: string): Promise<void> {
  await mkdir(join(on.labs, name), { recursive: true });
  await writeFile(join(on.labs, name, file), text);
}

/** The board's app on a real socket (127.0.0.1, a free port). */
export async function serveBoard(on: ClassOnDisk, deps: Partial<BoardDeps> = {}): Promise<Served> {
  const app = createBoardApp({
    folders: new LabFolders({ labs: on.labs, saved: on.saved, states: on.states }),
    allowedHosts: [],
    sessions: undefined,
    ...deps,
  });
  return serveOnLoopback(app.fetch);
}
