/**
 * The tutor's memory (app/tutor/runs-file.ts, reports/runs.json) over a stand-in of n8n's runs: a console
 * started again shows the same verdicts word for word and reads no run it has read at the same status; a run
 * read while it waited is followed until it ends, however many runs come after it; a run id that n8n gives
 * again (a lab made anew) is a new run; a waiting run n8n no longer has, and a run too large to read, say so.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ApiCaller, mockApiClient } from '../../app/mock-api-client/client.js';
import { type LocalMockApi, startLocalMockApi } from '../../app/mock-api-client/local-mock-api.js';
import { RunsFileSchema } from '../../app/runs/file.js';
import type { RunFeed } from '../../app/runs/run.js';
import type { ExplainInput } from '../../app/tutor/explain.js';
import type { Explanation } from '../../app/tutor/explanation.js';
import { RunTutor } from '../../app/tutor/tutor.js';
import { recordingExplainer, run, StandInFeed } from './stand-ins.js';

const POLL_MS = 40;
let mockApi: LocalMockApi;
let api: ApiCaller & { close(): void };
let dir: string;
const tutors: RunTutor[] = [];

beforeAll(async () => {
  mockApi = await startLocalMockApi();
  api = mockApiClient({ kind: 'http', url: mockApi.url }, { timeoutMs: 2000 });
});
afterAll(async () => {
  api.close();
  await mockApi.close();
});
afterEach(() => {
  for (const t of tutors.splice(0)) t.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A console's tutor on the test's runs file (a new folder unless `file` is given), listened to. */
function console_(feed: RunFeed, explain: (i: ExplainInput) => Explanation, file?: string) {
  if (file === undefined) dir = mkdtempSync(join(tmpdir(), 'soar-tutor-memory-'));
  const tutor = new RunTutor({
    feed,
    api,
    identityOf: async () => null,
    runsFile: file ?? join(dir, 'runs.json'),
    pollMs: POLL_MS,
    explain,
  });
  tutor.start();
  tutor.subscribe(() => undefined);
  tutors.push(tutor);
  return tutor;
}
const readRuns = () => RunsFileSchema.parse(JSON.parse(readFileSync(join(dir, 'runs.json'), 'utf8')));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (what: () => boolean, ms = 3000) => {
  const deadline = Date.now() + ms;
  while (!what()) {
    if (Date.now() > deadline) throw new Error('not within time');
    await sleep(10);
  }
};
/** An explainer whose verdicts depend on the state read: a second read would say something else. */
function byRead(): (i: ExplainInput) => Explanation {
  let reads = 0;
  const fixed = recordingExplainer([]);
  return (input) => {
    reads++;
    return { ...fixed(input), summary: `read ${reads}` };
  };
}

describe("the tutor's memory", () => {
  it('a console started again shows the same verdicts, word for word, and reads none of those runs again', async () => {
    const feed = new StandInFeed();
    feed.runs.set('1', run('1', 'success', [0, 2]));
    feed.runs.set('2', run('2', 'waiting', [5, null]));
    const first = console_(feed, byRead());
    await until(() => first.view.runs.length === 2);
    const said = structuredClone(first.view.runs);
    first.stop();

    feed.detailCalls.length = 0;
    const again = console_(feed, byRead(), join(dir, 'runs.json'));
    await until(() => again.view.runs.length === 2);
    await sleep(POLL_MS * 4);
    expect(again.view.runs).toEqual(said);
    expect(feed.detailCalls).toEqual([]);
    expect(readRuns().total).toBe(2);
    // The waiting run, once ended, is read again (and only it), counted once.
    feed.runs.set('2', run('2', 'error', [5, 9]));
    await until(() => again.view.runs[0]?.status === 'error');
    expect(feed.detailCalls).toEqual(['2']);
    expect(readRuns().total).toBe(2);

    // Control: a console without that memory reads both again, and says something else of them.
    const amnesiac = console_(feed, byRead());
    await until(() => amnesiac.view.runs.length === 2);
    expect(amnesiac.view.runs.map((r) => r.summary)).not.toEqual(again.view.runs.map((r) => r.summary));
  });

  it('follows a waiting run until it ends, with twenty-five runs after it', async () => {
    const feed = new StandInFeed();
    feed.runs.set('1', run('1', 'waiting', [0, null]));
    const tutor = console_(feed, recordingExplainer([]));
    await until(() => tutor.view.runs[0]?.verdict === 'waiting');
    // Five at a time (the feed lists twenty a poll: more than a trainee makes between two polls).
    for (let i = 2; i <= 26; i++) {
      feed.runs.set(String(i), run(String(i), 'success', [i * 2, i * 2 + 1]));
      if (i % 5 === 0 || i === 26) await until(() => tutor.view.runs.length === i);
    }
    // The feed now lists the newest twenty only: run 1 is not among them.
    expect((await feed.recent(20)).map((h) => h.id)).not.toContain('1');
    feed.runs.set('1', run('1', 'success', [0, 60]));
    await until(() => tutor.view.runs.find((r) => r.execution_id === '1')?.status === 'success');
    expect(readRuns().seen.find((s) => s.execution_id === '1')?.status).toBe('success');
  });

  it('runs made while another waited for its approval are told apart from it, by its busy times', async () => {
    for (const known of [true, false]) {
      const feed = new StandInFeed();
      const seen: ExplainInput[] = [];
      const busy = (spans: [number, number][]) => (known ? { busy: spans } : {});
      feed.runs.set('1', run('1', 'waiting', [0, null], busy([[0, 1]])));
      const tutor = console_(feed, recordingExplainer(seen));
      await until(() => seen.length === 1);
      feed.runs.set('2', run('2', 'success', [5, 6], busy([[5, 6]])));
      feed.runs.set('3', run('3', 'success', [10, 11], busy([[10, 11]])));
      await until(() => seen.length === 3);
      feed.runs.set(
        '1',
        run(
          '1',
          'success',
          [0, 20],
          busy([
            [0, 1],
            [15, 20],
          ]),
        ),
      );
      await until(() => seen.length === 4);
      const overlapping = seen.map((s) => [s.detail.head.id, s.overlapping]);
      // Without busy times (the control) a waiting run overlaps everything after its start.
      expect(overlapping, known ? 'busy times known' : 'windows only').toEqual(
        known
          ? [
              ['1', false],
              ['2', false],
              ['3', false],
              ['1', false],
            ]
          : [
              ['1', false],
              ['2', true],
              ['3', true],
              ['1', true],
            ],
      );
      tutor.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a run id given again by a lab made anew is a new run; the same id and start is not', async () => {
    const feed = new StandInFeed();
    feed.runs.set('1', run('1', 'success', [0, 2]));
    const first = console_(feed, recordingExplainer([]));
    await until(() => first.view.runs.length === 1);
    first.stop();
    feed.runs.set('1', run('1', 'error', [40, 41]));
    feed.detailCalls.length = 0;
    const again = console_(feed, recordingExplainer([]), join(dir, 'runs.json'));
    await until(() => again.view.runs.length === 2);
    expect(again.view.runs.map((r) => [r.execution_id, r.status])).toEqual([
      ['1', 'error'],
      ['1', 'success'],
    ]);
    expect(readRuns().total).toBe(2);
    await sleep(POLL_MS * 3);
    expect(feed.detailCalls).toEqual(['1']);
  });

  it('a waiting run n8n no longer has, and a run too large to read, each say so; neither is a try', async () => {
    const feed = new StandInFeed();
    feed.runs.set('3', run('3', 'waiting', [0, null]));
    const tutor = console_(feed, recordingExplainer([]));
    await until(() => tutor.view.runs[0]?.verdict === 'waiting');
    feed.runs.delete('3');
    await until(() => tutor.view.runs[0]?.verdict === 'cannot-tell');
    expect(tutor.view.runs[0]?.summary).toMatch(/^n8n no longer has this run/);

    feed.runs.set('4', run('4', 'success', [10, 11]));
    feed.tooLarge.add('4');
    await until(() => tutor.view.runs[0]?.execution_id === '4');
    expect(tutor.view.runs[0]).toMatchObject({ verdict: 'cannot-tell', unmet: null });
    expect(tutor.view.runs[0]?.summary).toMatch(
      /^its data is 9 MiB, more than the 8 MiB the tutor reads of a run, so it is not judged/,
    );
    const calls = feed.detailCalls.filter((id) => id === '4').length;
    await sleep(POLL_MS * 4);
    expect(feed.detailCalls.filter((id) => id === '4').length).toBe(calls);
    expect(readRuns().tries).toEqual({});
  });
});
