/**
 * Every stage check a lab ran, not only its last: `check-history.jsonl` beside `check-last.json`, one JSON
 * line a check, the newest last, bounded. Beside the report's format because the checker writes it and
 * the class report and the class board read it. Also the two verdict rules both need, written once: a stage's
 * verdict (PASS, FAIL, UNJUDGED) and a check's first failure (the stage and the hint to show).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { HISTORY_FILE, HISTORY_LIMIT } from '../lab-settings/names.js';
import type { StageName } from '../stages/stages.js';
import { type CheckReport, type RunPointer, StageNameSchema, type StageResult } from './report.js';

export { HISTORY_FILE, HISTORY_LIMIT };

export const StageVerdictSchema = z.enum(['pass', 'fail', 'unjudged']);
export type JudgedVerdict = z.infer<typeof StageVerdictSchema>;

export const HistoryLineSchema = z.object({
  /** When the check finished (the report's finished_at). */
  at: z.iso.datetime(),
  /** The stage asked for, or all. */
  requested: z.union([StageNameSchema, z.literal('all')]),
  passed: z.boolean(),
  /** Each stage the check judged, with its verdict; a stage it did not reach is absent. */
  stages: z.partialRecord(StageNameSchema, StageVerdictSchema),
  /** The first failed stage and its first hint (or the one line of a check that stopped). */
  first_failed: StageNameSchema.nullable(),
  first_hint: z.string().nullable(),
  /** The node the first failure points at, and the editor's address of its run (older lines lack them). */
  first_node: z.string().nullable().default(null),
  first_run_url: z.string().nullable().default(null),
  /** The check stopped early: nothing listened on a webhook path. */
  stopped: z.boolean(),
});
export type HistoryLine = z.infer<typeof HistoryLineSchema>;

/** `unjudged`: nothing of the stage could be judged and nothing failed; a stage with a failure fails. */
export function stageVerdictOf(stage: StageResult): JudgedVerdict {
  const { pass, fail, unjudged } = stage.counts;
  if (stage.status === 'fail') return 'fail';
  return pass === 0 && fail === 0 && unjudged > 0 ? 'unjudged' : 'pass';
}

/** The first failed stage of a check in stage order and its first failed expectation's hint; a check that
 * stopped says its one line instead. */
export function firstFailure(
  report: CheckReport,
): { stage: StageName; hint: string | null; run: RunPointer | null } | null {
  const stage = report.stages.find((s) => s.status === 'fail')?.stage;
  if (report.stopped !== null) {
    return { stage: stage ?? report.stopped.stage, hint: report.stopped.message, run: null };
  }
  if (stage === undefined) return null;
  const failed = report.results.find((r) => r.stage === stage && r.status === 'fail');
  return { stage, hint: failed?.hint ?? null, run: failed?.run ?? null };
}

export function historyLineOf(report: CheckReport): HistoryLine {
  const failure = firstFailure(report);
  return {
    at: report.finished_at,
    requested: report.requested,
    passed: report.passed,
    stages: Object.fromEntries(report.stages.map((s) => [s.stage, stageVerdictOf(s)])),
    first_failed: failure?.stage ?? null,
    first_hint: failure?.hint ?? null,
    first_node: failure?.run?.node ?? null,
    first_run_url: failure?.run?.url ?? null,
    stopped: report.stopped !== null,
  };
}

/** Writes a whole file or nothing: a reader (the console, the class board) never sees half a report. */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${randomBytes(6).toString('hex')}.part`);
  try {
    await writeFile(temp, text);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Adds one line to the history at `path`, keeping the newest `limit` (the file is rewritten whole). Two
 * checks finishing in the same instant in one lab may keep only one line: the lab runs one at a time. */
export async function appendHistory(path: string, line: HistoryLine, limit = HISTORY_LIMIT): Promise<void> {
  let kept: string[] = [];
  try {
    kept = (await readFile(path, 'utf8')).split('\n').filter((l) => l.trim() !== '');
  } catch (error) {
    if (!(error instanceof Error && 'code' in error && error.code === 'ENOENT')) throw error;
  }
  kept = [...kept.slice(Math.max(0, kept.length - (limit - 1))), JSON.stringify(line)];
  await writeFileAtomic(path, `${kept.join('\n')}\n`);
}

/** The readable lines of a history, oldest first, and how many were not (a line cut short, another file). */
export function parseHistory(text: string): { lines: HistoryLine[]; unreadable: number } {
  const lines: HistoryLine[] = [];
  let unreadable = 0;
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      unreadable++;
      continue;
    }
    const parsed = HistoryLineSchema.safeParse(json);
    if (parsed.success) lines.push(parsed.data);
    else unreadable++;
  }
  return { lines, unreadable };
}

/** The history file beside a check report. */
export const historyPathOf = (reportPath: string) => join(dirname(reportPath), HISTORY_FILE);
