/**
 * The tutor (app/tutor/tutor.ts) over a stand-in of the workflow platform (a RunFeed in memory) and the
 * mock API served in process (real HTTP): it polls only while someone listens and catches up on the first
 * listener; a run is explained once it has ended or waits, a waiting one again once it ends, replacing its
 * line and counted once; reports/runs.json is written whole and valid; n8n or the mock API not answering is
 * the tutor's own state, said once, and nothing is claimed about a run meanwhile.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findIdentity } from '../../app/api/schemas/identities.js';
import { type ApiCaller, mockApiClient } from '../../app/mock-api-client/client.js';
import { type LocalMockApi, startLocalMockApi } from '../../app/mock-api-client/local-mock-api.js';
import { RunsFileSchema } from '../../app/runs/file.js';
import type { RunFeed } from '../../app/runs/run.js';
import type { ExplainInput } from '../../app/tutor/explain.js';
import type { Explanation } from '../../app/tutor/explanation.js';
import { RunTutor } from '../../app/tutor/tutor.js';
import type { TutorView } from '../../app/tutor/tutor-view.js';
import { recordingExplainer, run, StandInFeed } from './stand-ins.js';

const POLL_MS = 40;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

/** The identity system's fixed directory, as the console reads it (never the lab's mock API). */
const identityOf = async (user: string) => {
  const found = findIdentity(user);
  return found === undefined ? null : { ...found };
};

function tutorOf(
  feed: RunFeed,
  options: { explain?: (i: ExplainInput) => Explanation; api?: ApiCaller } = {},
) {
  dir = mkdtempSync(join(tmpdir(), 'soar-tutor-'));
  const tutor = new RunTutor({
    feed,
    api: options.api ?? api,
    identityOf,
    runsFile: join(dir, 'runs.json'),
    pollMs: POLL_MS,
    ...(options.explain ? { explain: options.explain } : {}),
  });
  tutor.start();
  tutors.push(tutor);
  return tutor;
}
/** A second tutor on the same file, stopped after the test. */
class RunStandIn extends RunTutor {
  constructor(feed: RunFeed, runsFile: string, explain: (i: ExplainInput) => Explanation) {
    super({ feed, api, identityOf, runsFile, pollMs: POLL_MS, explain });
    this.start();
    tutors.push(this);
  }
}
const readRuns = () => RunsFileSchema.parse(JSON.parse(readFileSync(join(dir, 'runs.json'), 'utf8')));
const until = async (what: () => boolean, ms = 3000) => {
  const deadline = Date.now() + ms;
  while (!what()) {
    if (Date.now() > deadline) throw new Error('not within time');
    await sleep(10);
  }
};

describe('the tutor', () => {
  it('polls only while someone listens, catching up on the first listener', async () => {
    const feed = new StandInFeed();
    feed.runs.set('1', run('1', 'success', [0, 2]));
    feed.runs.set('2', run('2', 'error', [5, 6]));
    const tutor = tutorOf(feed, { explain: recordingExplainer([]) });
    await sleep(POLL_MS * 4);
    expect(feed.recentCalls).toBe(0);
    expect(tutor.polling).toBe(false);

    const views: TutorView[] = [];
    const unsubscribe = tutor.subscribe((v) => views.push(v));
    await until(() => tutor.view.runs.length === 2);
    // Newest first; each run fetched once.
    expect(tutor.view.runs.map((r) => r.execution_id)).toEqual(['2', '1']);
    await sleep(POLL_MS * 3);
    expect(feed.detailCalls.sort()).toEqual(['1', '2']);
    // Nothing new: no new version.
    expect(views.length).toBe(1);

    unsubscribe();
    const calls = feed.recentCalls;
    await sleep(POLL_MS * 4);
    expect(feed.recentCalls).toBe(calls);
    expect(tutor.polling).toBe(false);
  });

  it('explains a waiting run, then again once it ends: one line, counted once, the file valid', async () => {
    const feed = new StandInFeed();
    const seen: ExplainInput[] = [];
    feed.runs.set('7', run('7', 'running', [0, null]));
    const tutor = tutorOf(feed, { explain: recordingExplainer(seen) });
    tutor.subscribe(() => undefined);
    await sleep(POLL_MS * 3);
    // A running run is not explained.
    expect(seen).toEqual([]);

    feed.runs.set('7', run('7', 'waiting', [0, null]));
    await until(() => tutor.view.runs[0]?.status === 'waiting');
    expect(readRuns()).toMatchObject({
      total: 1,
      tries: {},
      runs: [{ execution_id: '7', verdict: 'waiting' }],
    });

    feed.runs.set('7', run('7', 'success', [0, 9]));
    await until(() => tutor.view.runs[0]?.status === 'success');
    await sleep(POLL_MS * 3);
    expect(tutor.view.runs.map((r) => [r.execution_id, r.status])).toEqual([['7', 'success']]);
    expect(feed.detailCalls).toEqual(['7', '7']);
    expect(seen.map((s) => s.detail.head.status)).toEqual(['waiting', 'success']);
    const file = readRuns();
    expect(file).toMatchObject({ kind: 'tutor-runs', total: 1, tries: { enrich: 1 } });
    expect(file.runs.map((r) => [r.execution_id, r.verdict])).toEqual([['7', 'unmet']]);
    // Written whole: no temp file left beside it.
    expect(readdirSync(dir)).toEqual(['runs.json']);

    // A second run is a second try.
    feed.runs.set('8', run('8', 'error', [20, 21]));
    await until(() => readRuns().total === 2);
    expect(readRuns().tries).toEqual({ enrich: 2 });

    // A console started again goes on from the file: run 8 again is no new run, run 9 is.
    tutor.stop();
    const again = new RunStandIn(feed, join(dir, 'runs.json'), recordingExplainer([]));
    feed.runs.set('9', run('9', 'error', [30, 31]));
    again.subscribe(() => undefined);
    await until(() => readRuns().total === 3);
    expect(readRuns().tries).toEqual({ enrich: 3 });
    expect(readRuns().runs.map((r) => r.execution_id)).toEqual(['9', '8', '7']);
  });

  it("judges a run's requests uncertain only when another run's time overlaps its own", async () => {
    const feed = new StandInFeed();
    const seen: ExplainInput[] = [];
    feed.runs.set('1', run('1', 'success', [0, 4]));
    feed.runs.set('2', run('2', 'success', [3, 8]));
    feed.runs.set('3', run('3', 'success', [10, 12]));
    // A waiting run goes on: it overlaps everything after its start.
    feed.runs.set('4', run('4', 'waiting', [20, null]));
    feed.runs.set('5', run('5', 'error', [30, 31]));
    const tutor = tutorOf(feed, { explain: recordingExplainer(seen) });
    tutor.subscribe(() => undefined);
    await until(() => seen.length === 5);
    const overlapping = Object.fromEntries(seen.map((s) => [s.detail.head.id, s.overlapping]));
    expect(overlapping).toEqual({ '1': true, '2': true, '3': false, '4': true, '5': true });
  });

  it("judges a run beside one still going once that one's busy times are known, as n8n's node times show", async () => {
    // Two alerts at once: run 2 began (n8n's startedAt) before run 1's last node ended, but its nodes ran
    // after (busy 1.3-1.6 s after run 1's 0-1 s). Judged on run 2's window alone, run 1 would be said to
    // overlap; it waits until run 2's times are known.
    const base = Date.now() - 1500;
    const near = (
      d: ReturnType<typeof run>,
      start: number,
      stop: number | null,
      busy: [number, number][],
    ) => {
      d.head.startedAt = new Date(base + start).toISOString();
      d.head.stoppedAt = stop === null ? null : new Date(base + stop).toISOString();
      d.view.busy = busy.map(([a, b]): [number, number] => [base + a, base + b]);
      return d;
    };
    for (const [second, expected] of [
      [[1300, 1600], { '1': false, '2': false }],
      // Control: run 2's nodes ran while run 1's did: both said to overlap.
      [[900, 1600], { '1': true, '2': true }],
    ] as const) {
      const feed = new StandInFeed();
      const seen: ExplainInput[] = [];
      feed.runs.set('1', near(run('1', 'success', [0, 1]), 0, 1000, [[0, 1000]]));
      feed.runs.set('2', near(run('2', 'running', [1, null]), 800, null, []));
      const tutor = tutorOf(feed, { explain: recordingExplainer(seen) });
      tutor.subscribe(() => undefined);
      await until(() => feed.recentCalls >= 3);
      expect(seen, 'run 1 not judged while run 2 goes on').toEqual([]);
      feed.runs.set('2', near(run('2', 'success', [1, 2]), 800, 1700, [[...second]]));
      await until(() => seen.length === 2);
      expect(Object.fromEntries(seen.map((s) => [s.detail.head.id, s.overlapping]))).toEqual(expected);
      tutor.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("leaves the checker's runs to the checker; the identity from the directory, nothing asked of the lab's mock API", async () => {
    const feed = new StandInFeed();
    const seen: ExplainInput[] = [];
    feed.runs.set('1', run('1', 'success', [0, 1], { headers: { 'x-soar-stimulus': 'evt-chk-1' } }));
    feed.runs.set('2', run('2', 'success', [2, 3]));
    feed.runs.set('3', run('3', 'success', [4, 5]));
    feed.runs.set('4', run('4', 'success', [6, 7], { user: 'nobody-x' }));
    await api.request('POST', '/reset');
    const tutor = tutorOf(feed, { explain: recordingExplainer(seen) });
    tutor.subscribe(() => undefined);
    await until(() => seen.length === 3);
    expect(seen.map((s) => s.detail.head.id)).toEqual(['2', '3', '4']);
    expect(seen[0]?.identity).toMatchObject({ user: 'lab-admin', role: 'administrator' });
    expect(seen[2]?.identity).toBeNull();
    const state = (await api.request('GET', '/state')).body as { journal: { path: string }[] };
    const paths = state.journal.map((j) => j.path);
    // A request of the tutor's in the journal would be taken for a run's.
    expect(paths.slice(paths.lastIndexOf('/reset') + 1)).toEqual([]);
  });

  it('says once that n8n does not answer, claims nothing meanwhile, and explains once it answers', async () => {
    const feed = new StandInFeed();
    feed.down = true;
    feed.runs.set('1', run('1', 'error', [0, 1]));
    const tutor = tutorOf(feed);
    const views: TutorView[] = [];
    tutor.subscribe((v) => views.push(v));
    await until(() => feed.recentCalls >= 4);
    expect(views).toHaveLength(1);
    expect(views[0]?.trouble).toMatch(/^Your runs cannot be read from n8n just now \(n8n unreachable at/);
    expect(views[0]?.runs).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);

    feed.down = false;
    await until(() => tutor.view.runs.length === 1);
    expect(tutor.view.trouble).toBeNull();
    // The real explainer, on the state of the in-process mock API: whatever it says, the file holds it.
    expect(tutor.view.runs[0]).toMatchObject({ execution_id: '1', workflow: 'Suspicious Login Response' });
    expect(readRuns()).toMatchObject({ total: 1, runs: [{ execution_id: '1' }] });
  });

  it('says the mock API does not answer, and explains the run (once) when it answers again', async () => {
    const feed = new StandInFeed();
    const seen: ExplainInput[] = [];
    let mockDown = true;
    const flaky: ApiCaller = {
      describe: api.describe,
      request: (method, path, body) =>
        mockDown ? Promise.reject(new Error('connect ECONNREFUSED')) : api.request(method, path, body),
    };
    feed.runs.set('1', run('1', 'success', [0, 1]));
    const tutor = tutorOf(feed, { explain: recordingExplainer(seen), api: flaky });
    tutor.subscribe(() => undefined);
    await until(() => tutor.view.trouble !== null);
    expect(tutor.view.trouble).toMatch(/^The mock API's state cannot be read just now/);
    await sleep(POLL_MS * 3);
    expect(seen).toEqual([]);
    expect(tutor.view.runs).toEqual([]);

    mockDown = false;
    await until(() => tutor.view.runs.length === 1);
    expect(tutor.view.trouble).toBeNull();
    expect(seen).toHaveLength(1);
  });
});
