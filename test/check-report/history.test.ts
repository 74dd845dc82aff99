/**
 * Every check a lab runs lands in check-history.jsonl beside check-last.json: the checker appends one
 * line a check (its stages' verdicts, its first hint), the file keeps the newest 500, a line that cannot
 * be read costs that line only, and the report itself is written whole or not at all.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCheck } from '../../app/check/run-check.js';
import { REFERENCE_VARIANTS } from '../../app/check/variants.js';
import {
  appendHistory,
  HISTORY_FILE,
  HISTORY_LIMIT,
  type HistoryLine,
  historyLineOf,
  parseHistory,
  writeFileAtomic,
} from '../../app/check-report/history.js';
import { CheckReportSchema } from '../../app/check-report/report.js';
import { checkReference } from '../check/check-helpers.js';
import { checkReport, ENRICH_HINT, STOPPED_LINE } from '../classroom/class-fixture.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'check-history-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const line = (n: number): HistoryLine => ({
  at: new Date(Date.UTC(2026, 10, 24, 9, 0, n)).toISOString(),
  requested: 'webhook',
  passed: true,
  first_node: null,
  first_run_url: null,
  stages: { webhook: 'pass' },
  first_failed: null,
  first_hint: null,
  stopped: false,
});

const readLines = async (path: string) => parseHistory(await readFile(path, 'utf8'));

describe('a history line', () => {
  it('holds each judged stage’s verdict and the first failure’s hint; UNJUDGED is not PASS', () => {
    expect(
      historyLineOf(checkReport('decide', { failing: 'enrich', hint: ENRICH_HINT, unjudged: 'webhook' })),
    ).toEqual({
      at: '2026-11-24T09:41:07.000Z',
      requested: 'decide',
      passed: false,
      stages: {
        webhook: 'unjudged',
        validate: 'pass',
        enrich: 'fail',
        'case-lookup': 'pass',
        decide: 'pass',
      },
      first_failed: 'enrich',
      first_hint: ENRICH_HINT,
      first_node: null,
      first_run_url: null,
      stopped: false,
    });
  });

  it('a check that stopped gives its one line as the hint', () => {
    expect(historyLineOf(checkReport('all', { stoppedAt: 'webhook', hint: STOPPED_LINE }))).toMatchObject({
      stages: { webhook: 'fail' },
      first_failed: 'webhook',
      first_hint: STOPPED_LINE,
      stopped: true,
    });
  });
});

describe('the history file', () => {
  it(`keeps the newest ${HISTORY_LIMIT}, oldest first, one JSON line each`, async () => {
    const path = join(dir, 'bounded', HISTORY_FILE);
    const lines = Array.from({ length: HISTORY_LIMIT + 20 }, (_, n) => JSON.stringify(line(n % 60)));
    await writeFileAtomic(path, `${lines.join('\n')}\n`);
    await appendHistory(path, { ...line(0), requested: 'all' });
    const text = await readFile(path, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const { lines: kept, unreadable } = parseHistory(text);
    expect(unreadable).toBe(0);
    expect(kept).toHaveLength(HISTORY_LIMIT);
    expect(kept.at(-1)?.requested).toBe('all');
    expect(kept[0]).toEqual(line(21 % 60));
  });

  it('a small limit: the oldest go first', async () => {
    const path = join(dir, 'small', HISTORY_FILE);
    for (let n = 0; n < 5; n++) await appendHistory(path, line(n), 3);
    expect((await readLines(path)).lines.map((l) => l.at.slice(17, 19))).toEqual(['02', '03', '04']);
  });

  it('a line cut short or from another file is counted unreadable, the others are read', async () => {
    const path = join(dir, 'broken', HISTORY_FILE);
    await writeFileAtomic(path, `${JSON.stringify(line(1))}\n{"at":"2026-11-24T09:0\n{"passed":"maybe"}\n`);
    await appendHistory(path, line(2));
    expect(await readLines(path)).toMatchObject({ unreadable: 2, lines: [line(1), line(2)] });
  });

  it('is written whole: no temporary file stays, and a failed write leaves no file', async () => {
    const folder = join(dir, 'whole');
    await writeFileAtomic(join(folder, 'check-last.json'), '{}\n');
    expect(await readdir(folder)).toEqual(['check-last.json']);
    await expect(writeFileAtomic(join(folder, 'check-last.json', 'x'), '{}')).rejects.toThrow();
    expect(await readdir(folder)).toEqual(['check-last.json']);
  });
});

describe('the checker appends to the history wherever it writes its report', () => {
  it('one line a check, the same verdicts as check-last.json; a failed check with its hint', async () => {
    const reports = join(dir, 'lab', 'reports');
    const [options, output, hooks] = checkReference('validate');
    options.reportPath = join(reports, 'check-last.json');
    const passed = await runCheck(options, output, hooks);
    const variant = REFERENCE_VARIANTS['no-environment-check'].reference;
    const [, , broken] = checkReference('validate', variant);
    const failed = await runCheck(options, output, broken);

    expect(passed.passed).toBe(true);
    expect(failed.passed).toBe(false);
    const history = await readLines(join(reports, HISTORY_FILE));
    expect(history.unreadable).toBe(0);
    expect(history.lines).toEqual([historyLineOf(passed), historyLineOf(failed)]);
    expect(history.lines[1]).toMatchObject({ first_failed: 'validate', stages: { validate: 'fail' } });
    expect(history.lines[1]?.first_hint).toBe(failed.results.find((r) => r.status === 'fail')?.hint);
    // check-last.json is the second check's, whole.
    expect(CheckReportSchema.parse(JSON.parse(await readFile(options.reportPath, 'utf8')))).toEqual(failed);
    expect((await readdir(reports)).sort()).toEqual(['check-history.jsonl', 'check-last.json']);
  }, 60_000);
});
