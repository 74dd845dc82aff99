/**
 * The class board over real HTTP, on fake reports folders and a states file: what it shows comes from the
 * class report's own model; a check landing in a lab shows on the next request, with when each stage
 * first passed; the states file gives each lab's state; a broken input marks one lab, not the class; each
 * trainee's last run from the tutor's runs.json, beside their last check; the report CLI reading the same
 * folders says the same. Its guard and its entry: class-board-guard.test.ts.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClassReport } from '../../app/classroom/class-report.js';
import { LabFolders } from '../../app/classroom/lab-folders.js';
import { STAGE_NAMES } from '../../app/stages/stages.js';
import { spawnNode } from '../helpers/service-process.js';
import {
  type ClassOnDisk,
  classOnDisk,
  landCheck,
  landRuns,
  type Served,
  serveBoard,
  writeRaw,
  writeStates,
} from './board-fixture.js';
import {
  BOB_RUN_URL,
  BOB_RUNS,
  checkReport,
  ENRICH_HINT,
  runAt,
  runsFile,
  tutorRun,
} from './class-fixture.js';

let on: ClassOnDisk;
let board: Served;

const TWO = [
  {
    name: 'alice',
    state: 'running',
    editor_url: 'http://127.0.0.1:5679',
    console_url: 'http://127.0.0.1:8089',
  },
  { name: 'bob', state: 'running' },
] as const;

beforeEach(async () => {
  on = classOnDisk(['alice', 'bob']);
  await writeStates(on, TWO);
  board = await serveBoard(on);
});
afterEach(async () => {
  await board.close();
  on.remove();
});

async function get(path: string) {
  const answer = await fetch(`${board.url}${path}`);
  return { status: answer.status, type: answer.headers.get('content-type'), text: await answer.text() };
}
const classJson = async (): Promise<ClassReport> => JSON.parse((await get('/class.json')).text);
const lab = async (name: string) => {
  const found = (await classJson()).labs.find((l) => l.name === name);
  if (found === undefined) throw new Error(`no ${name}`);
  return found;
};

describe('the class board over HTTP', () => {
  it('lists the states file’s labs with their state and URLs; a lab never checked says so', async () => {
    const report = await classJson();
    expect(report.labs.map((l) => [l.name, l.state, l.check, l.checks])).toEqual([
      ['alice', 'running', 'never', 0],
      ['bob', 'running', 'never', 0],
    ]);
    expect(report.labs[0]).toMatchObject({ editor_url: 'http://127.0.0.1:5679', up: true });
    expect(report.totals).toEqual({ labs: 2, running: 2, checked: 0, all_passed: 0, checks: 0, runs: 0 });
    expect(report.states_stale).toBe(false);
  });

  it('a check landing shows on the next request, and each stage keeps when it first passed', async () => {
    await landCheck(
      on,
      'bob',
      checkReport('decide', { failing: 'enrich', hint: ENRICH_HINT, finishedAt: '2026-11-24T09:41:07.000Z' }),
    );
    expect(await lab('bob')).toMatchObject({
      check: 'checked',
      next_stage: 'enrich',
      next_hint: ENRICH_HINT,
      checks: 1,
    });

    await landCheck(on, 'bob', checkReport('enrich', { finishedAt: '2026-11-24T10:05:00.000Z' }));
    const bob = await lab('bob');
    expect(bob).toMatchObject({ requested: 'enrich', passed: true, next_stage: null, checks: 2 });
    expect(STAGE_NAMES.map((s) => [s, bob.stages[s].verdict, bob.stages[s].first_passed_at])).toEqual([
      ['webhook', 'pass', '2026-11-24T09:41:07.000Z'],
      ['validate', 'pass', '2026-11-24T09:41:07.000Z'],
      ['enrich', 'pass', '2026-11-24T10:05:00.000Z'],
      // Passed in the first check, not asked for in the last: not checked now, its first pass kept.
      ['case-lookup', 'not_checked', '2026-11-24T09:41:07.000Z'],
      ['decide', 'not_checked', '2026-11-24T09:41:07.000Z'],
      ...STAGE_NAMES.slice(5).map((s) => [s, 'not_checked', null]),
    ]);
    expect(bob.history.map((l) => [l.at, l.passed, l.first_failed])).toEqual([
      ['2026-11-24T09:41:07.000Z', false, 'enrich'],
      ['2026-11-24T10:05:00.000Z', true, null],
    ]);

    const content = await get('/board/content');
    expect(content.type).toMatch(/^text\/html; charset=utf-8$/i);
    expect(content.text).toContain('title="first passed 2026-11-24 10:05 UTC">✓ 11-24 10:05</span>');
    const csv = (await get('/class.csv')).text.split('\r\n');
    expect(csv[2]).toMatch(/^bob,running,2026-11-24T10:05:00.000Z,enrich,PASS,PASS,PASS,not checked,/);
    expect(csv[2]).toMatch(/,2,2026-11-24T09:41:07.000Z,2026-11-24T09:41:07.000Z,2026-11-24T10:05:00.000Z,/);
    const history = (await get('/class-history.csv')).text.trimEnd().split('\r\n');
    expect(history).toHaveLength(3);
    expect(history[1]).toBe(
      `bob,2026-11-24T09:41:07.000Z,decide,false,PASS,PASS,FAIL,PASS,PASS,${Array(6).fill('not checked').join(',')},enrich,"${ENRICH_HINT}",,`,
    );
  });

  it('shows beside the hint the node a trainee is stuck at, and since when, from the checks as they land', async () => {
    // The class's day, so the page says 10:42 rather than 11-24 10:42.
    await board.close();
    board = await serveBoard(on, { now: () => new Date('2026-11-24T11:00:00.000Z') });
    const failAt = (time: string, node: string, id: string) =>
      checkReport('decide', {
        failing: 'enrich',
        hint: ENRICH_HINT,
        finishedAt: `2026-11-24T${time}:00.000Z`,
        run: runAt(node, id),
      });
    // A line the checker wrote before it named nodes: read, and it names none.
    await writeRaw(
      on,
      'bob',
      'check-history.jsonl',
      `${JSON.stringify({ at: '2026-11-24T10:30:00.000Z', requested: 'decide', passed: false, stages: { enrich: 'fail' }, first_failed: 'enrich', first_hint: ENRICH_HINT, stopped: false })}\n`,
    );
    await landCheck(on, 'bob', failAt('10:38', 'Enrich <script>', '11'));
    await landCheck(on, 'bob', failAt('10:42', 'Record', '12'));
    await landCheck(on, 'bob', failAt('10:47', 'Record', '13'));
    expect(await lab('bob')).toMatchObject({
      checks: 4,
      history_unreadable: 0,
      next_node: 'Record',
      next_run_url: 'http://127.0.0.1:5601/workflow/wf1/executions/13',
      stuck: { since: '2026-11-24T10:42:00.000Z', checks: 2 },
    });
    const content = (await get('/board/content')).text;
    expect(content).toContain(
      'stuck at <b class="node">Record</b> since 10:42 <span class="checks">(2 checks)</span> · <a href="http://127.0.0.1:5601/workflow/wf1/executions/13" target="_blank" rel="noopener">the run</a>',
    );
    const csv = (await get('/class.csv')).text.split('\r\n');
    expect(csv[2]).toContain(
      `,enrich,"${ENRICH_HINT}",Record,2026-11-24T10:42:00.000Z,http://127.0.0.1:5601/workflow/wf1/executions/13,4,`,
    );
    const history = (await get('/class-history.csv')).text.trimEnd().split('\r\n');
    expect(history.slice(1).map((l) => l.split(',').slice(-2).join(','))).toEqual([
      ',',
      'Enrich <script>,http://127.0.0.1:5601/workflow/wf1/executions/11',
      'Record,http://127.0.0.1:5601/workflow/wf1/executions/12',
      'Record,http://127.0.0.1:5601/workflow/wf1/executions/13',
    ]);

    // Fixed: the next check passes, and nobody is stuck.
    await landCheck(on, 'bob', checkReport('decide', { finishedAt: '2026-11-24T10:51:00.000Z' }));
    expect(await lab('bob')).toMatchObject({ next_node: null, stuck: null });
    expect((await get('/board/content')).text).not.toContain('class="stuck"');
  });

  it('a report that is not JSON marks that lab unreadable; a history line cut short is counted, not fatal', async () => {
    await landCheck(on, 'bob', checkReport('webhook'));
    await writeRaw(on, 'alice', 'check-last.json', '{"kind":"stage-ch');
    await writeRaw(on, 'alice', 'check-history.jsonl', '{"at":\n');
    const report = await classJson();
    expect(report.labs.map((l) => [l.name, l.check, l.history_unreadable])).toEqual([
      ['alice', 'unreadable', 1],
      ['bob', 'checked', 0],
    ]);
    expect((await get('/board/content')).text).toContain('unreadable report');
  });

  it('a lab without its own report (its volume gone) shows the host’s copy', async () => {
    await rm(join(on.labs, 'alice'), { recursive: true });
    await writeRaw(
      { ...on, labs: on.saved },
      'alice',
      'check-last.json',
      JSON.stringify(checkReport('validate')),
    );
    expect(await lab('alice')).toMatchObject({ check: 'checked', requested: 'validate', passed_in_a_row: 2 });
  });

  it('the states file decides each lab’s state; stopped, broken with why, absent', async () => {
    await writeStates(on, [
      { name: 'alice', state: 'stopped' },
      { name: 'bob', state: 'broken', detail: 'n8n exited' },
      { name: 'carol', state: 'absent' },
    ]);
    const report = await classJson();
    expect(report.labs.map((l) => [l.name, l.state, l.state_detail, l.up])).toEqual([
      ['alice', 'stopped', null, false],
      ['bob', 'broken', 'n8n exited', false],
      ['carol', 'absent', null, false],
    ]);
    const content = (await get('/board/content')).text;
    expect(content).toContain('<tr data-lab="alice" data-state="stopped">');
    expect(content).toContain('<div class="state-detail">n8n exited</div>');
  });

  it('a states file that is unreadable: every lab folder, state unknown and why', async () => {
    await writeRaw({ ...on, labs: join(on.root) }, 'state', 'states.json', '{"at": "now", "labs": 3}');
    const report = await classJson();
    expect(report.labs.map((l) => [l.name, l.state, l.state_detail])).toEqual([
      ['alice', 'unknown', 'the lab states file is unreadable'],
      ['bob', 'unknown', 'the lab states file is unreadable'],
    ]);
  });

  it('states older than 10 s: the board says its host loop has stopped', async () => {
    await writeStates(on, TWO, new Date(Date.now() - 30_000));
    expect((await classJson()).states_stale).toBe(true);
    expect((await get('/board/content')).text).toMatch(
      /The lab states were last written at .*: is make class-board still running\?/,
    );
    await writeStates(on, TWO);
    expect((await get('/board/content')).text).not.toContain('last written');
  });

  it('report-cli --labs reads the same folders into the same facts (one model, two outputs)', async () => {
    await landCheck(on, 'alice', checkReport('all', { unjudged: 'webhook' }));
    await landRuns(on, 'alice', BOB_RUNS);
    await landCheck(on, 'bob', checkReport('decide', { failing: 'enrich', hint: ENRICH_HINT }));
    const proc = spawnNode('app/classroom/report-cli.ts', [
      '--format',
      'json',
      '--labs',
      on.labs,
      '--states',
      on.states,
    ]);
    proc.child.stdin.end();
    expect((await proc.exited).code).toBe(0);
    const fromCli: ClassReport = JSON.parse(proc.stdout());
    const fromBoard = await classJson();
    expect(fromCli.labs).toEqual(fromBoard.labs);
    expect(fromCli.totals).toEqual(fromBoard.totals);
    expect(fromCli.labs.map((l) => l.check)).toEqual(['checked', 'checked']);
    expect(fromCli.labs.map((l) => l.runs?.total ?? null)).toEqual([5, null]);
  });
});

/** A lab's run cell on the board's content, whole. */
const runCell = async (name: string) => {
  const content = (await get('/board/content')).text;
  const row = content.slice(content.indexOf(`<tr data-lab="${name}"`));
  return /<td class="run"[^>]*>.*?<\/td>/s.exec(row)?.[0];
};

describe('each trainee’s last run on the board, from the tutor’s runs.json', () => {
  it('beside the last check as a run lands; a lab without runs shows nothing there', async () => {
    await board.close();
    board = await serveBoard(on, { now: () => new Date('2026-11-24T11:00:00.000Z') });
    await landCheck(on, 'bob', checkReport('decide', { failing: 'enrich', hint: ENRICH_HINT }));
    expect(await runCell('bob')).toBe('<td class="run"></td>');
    expect((await lab('bob')).runs).toBeNull();

    await landRuns(on, 'bob', BOB_RUNS);
    expect((await lab('bob')).runs).toEqual({
      total: 5,
      last: BOB_RUNS.runs[0],
      tries: { enrich: 3, decide: 1 },
    });
    const cell = await runCell('bob');
    expect(cell).toContain(
      '<span class="run-verdict unmet">unmet at enrich</span><br>reached <b class="reached">decide</b>',
    );
    expect(cell).toContain(
      `09:52</span> · <a href="${BOB_RUN_URL}" target="_blank" rel="noopener">the run</a>`,
    );
    expect(cell).toContain(
      '<span class="run-count">5 runs</span> · tries: <span class="tries">enrich 3, decide 1</span>',
    );
    expect(await runCell('alice')).toBe('<td class="run"></td>');
    expect((await classJson()).totals.runs).toBe(5);

    // The tutor rewrites its file as the next run ends: the board shows it on the next request.
    const next = tutorRun('42', '2026-11-24T10:58:00.000Z', { reached: 'block' });
    await landRuns(on, 'bob', runsFile([next, ...BOB_RUNS.runs], BOB_RUNS.tries, 6));
    expect(await runCell('bob')).toContain(
      '<span class="run-verdict as-asked">as asked</span><br>reached <b class="reached">block</b><br><span class="run-at" title="started 2026-11-24 10:58 UTC">10:58</span>',
    );
    const csv = (await get('/class.csv')).text.split('\r\n');
    expect(csv[2]).toMatch(
      /,6,2026-11-24T10:58:00.000Z,block,as-asked,,http:\/\/127\.0\.0\.1:5601\/workflow\/wf1\/executions\/42\/node-enrich,0,0,3,0,1,0,0,0,0,0,0$/,
    );
  });

  it.each([
    ['not JSON', '{"kind":"tutor-ru'],
    ['not the tutor’s', JSON.stringify({ ...BOB_RUNS, kind: 'stage-check' })],
    ['empty', ''],
  ])('a runs.json that is %s is no runs yet: the lab, its check and the class stand', async (_, text) => {
    await landCheck(on, 'bob', checkReport('webhook'));
    await landRuns(on, 'alice', BOB_RUNS);
    await writeRaw(on, 'bob', 'runs.json', text);
    // The folders hand the model the tutor's file parsed, or null: never the broken text.
    const folders = new LabFolders({ labs: on.labs, saved: on.saved, states: on.states });
    expect((await folders.classInput()).labs.map((l) => l.runs)).toEqual([BOB_RUNS, null]);
    const report = await classJson();
    expect(report.labs.map((l) => [l.name, l.check, l.runs?.total ?? null])).toEqual([
      ['alice', 'never', 5],
      ['bob', 'checked', null],
    ]);
    expect(await runCell('bob')).toBe('<td class="run"></td>');
    expect((await get('/class.csv')).text.split('\r\n')[2]).toMatch(/,{17}$/);
  });

  it('a runs.json that is a folder is no runs; a lab whose volume is gone shows the host’s copy', async () => {
    await mkdir(join(on.labs, 'bob', 'runs.json'));
    expect((await lab('bob')).runs).toBeNull();
    await rm(join(on.labs, 'alice'), { recursive: true });
    await landRuns(on, 'alice', BOB_RUNS, 'saved');
    expect((await lab('alice')).runs?.last?.execution_id).toBe('41');
  });
});
