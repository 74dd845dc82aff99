/**
 * The tutor's runs in the class report: the model (how many runs, the last one, the tries per stage) from
 * runs.json, a file that is not the tutor's read as no runs yet, and what the page and class.csv show of
 * them. Read from the labs' folders and served live: class-board.test.ts; in a browser: the two
 * *.browser.ts.
 */
import { describe, expect, it } from 'vitest';
import type { ClassInput } from '../../app/classroom/class-input.js';
import { buildClassReport } from '../../app/classroom/class-report.js';
import { labRunsOf, triesText } from '../../app/classroom/lab-runs.js';
import { renderCsv } from '../../app/classroom/render-csv.js';
import { renderHtml } from '../../app/classroom/render-html.js';
import type { RunSummary } from '../../app/runs/file.js';
import { STAGE_NAMES } from '../../app/stages/stages.js';
import { BOB_RUN_URL, BOB_RUNS, CLASS, checkReport, runsFile, tutorRun } from './class-fixture.js';

const AT = '2026-11-24T10:47:12.000Z';

/** ann's class, as of the class's day, with `runs` as her runs.json holds it. */
const ann = (runs: unknown): ClassInput => ({
  generated_at: CLASS.generated_at,
  labs: [
    { name: 'ann', state: 'running', editor_url: null, console_url: null, report: null, runs },
    { name: 'ben', state: 'running', editor_url: null, console_url: null, report: checkReport('webhook') },
  ],
});
const page = (runs: unknown) => String(renderHtml(buildClassReport(ann(runs))));
/** ann's run cell, whole. */
const runCell = (runs: unknown) => /<td class="run"[^>]*>.*?<\/td>/s.exec(page(runs))?.[0];
/** ann's row of class.csv, by column name. */
function csvRow(runs: unknown): Record<string, string> {
  const [header = '', row = ''] = renderCsv(buildClassReport(ann(runs))).split('\r\n');
  const names = header.split(',');
  const values = row.split(',');
  return Object.fromEntries(names.map((n, i) => [n, values[i] ?? '']));
}
const RUN_COLUMNS = [
  'runs',
  'last_run_started_at',
  'last_run_reached',
  'last_run_verdict',
  'last_run_unmet_stage',
  'last_run_url',
  ...STAGE_NAMES.map((s) => `${s}_tries`),
];
const one = (over: Partial<RunSummary>) => runsFile([tutorRun('9', AT, over)]);

/** Files the tutor could not have written: each is no runs yet, never an error. */
const BROKEN: [string, unknown][] = [
  ['not the tutor’s kind', { ...BOB_RUNS, kind: 'stage-check' }],
  ['a total that is no number', { ...BOB_RUNS, total: '5' }],
  ['tries of an unknown stage', { ...BOB_RUNS, tries: { lunch: 2 } }],
  ['runs that are no list', { ...BOB_RUNS, runs: {} }],
  ['a run with an unknown verdict', { ...BOB_RUNS, runs: [{ ...BOB_RUNS.runs[0], verdict: 'great' }] }],
  ['a run with no time', { ...BOB_RUNS, runs: [{ ...BOB_RUNS.runs[0], started_at: 'this morning' }] }],
  ['a run reaching an unknown stage', { ...BOB_RUNS, runs: [{ ...BOB_RUNS.runs[0], reached: 'x' }] }],
  ['more runs than the file keeps', { ...BOB_RUNS, runs: Array(51).fill(BOB_RUNS.runs[0]) }],
  ['a string', 'tutor-runs'],
];

describe('a trainee’s runs, from the tutor’s runs.json', () => {
  it('how many runs, the newest (the file’s first), the stages that took tries in stage order', () => {
    expect(labRunsOf(BOB_RUNS)).toEqual({
      total: 5,
      last: BOB_RUNS.runs[0],
      // webhook 0 is no try; decide comes after enrich whatever the file's order.
      tries: { enrich: 3, decide: 1 },
    });
    expect(Object.keys(labRunsOf(BOB_RUNS)?.tries ?? {})).toEqual(['enrich', 'decide']);
    expect(triesText({ decide: 1, enrich: 3 })).toBe('enrich 3, decide 1');
    expect(triesText({})).toBe('');
  });

  it('no file is no runs; a file with none yet is none, not an error', () => {
    expect(labRunsOf(null)).toBeNull();
    expect(labRunsOf(runsFile([]))).toEqual({ total: 0, last: null, tries: {} });
    const report = buildClassReport(ann(null));
    expect(report.labs.map((l) => l.runs)).toEqual([null, null]);
    expect(report.totals.runs).toBe(0);
  });

  it.each(BROKEN)('a file with %s is no runs yet; the lab and the class stand', (_, file) => {
    expect(labRunsOf(file)).toBeNull();
    const report = buildClassReport(ann(file));
    expect(report.labs.map((l) => [l.name, l.runs])).toEqual([
      ['ann', null],
      ['ben', null],
    ]);
    expect(runCell(file)).toBe('<td class="run"></td>');
    const row = csvRow(file);
    expect(RUN_COLUMNS.map((c) => row[c])).toEqual(RUN_COLUMNS.map(() => ''));
  });

  it('the class’s total counts every lab’s runs', () => {
    expect(buildClassReport(CLASS).totals.runs).toBe(5);
    expect(page(BOB_RUNS)).toContain('<div class="total"><b>5</b>runs explained</div>');
  });
});

describe('the page’s last run', () => {
  it('beside the last check: verdict, the stage reached, when it started, its link, runs and tries', () => {
    expect(page(BOB_RUNS)).toContain('<th>last check</th><th>last run</th>');
    expect(runCell(BOB_RUNS)).toBe(
      `<td class="run" data-verdict="unmet" data-started="2026-11-24T09:52:30.000Z"><span class="run-verdict unmet">unmet at enrich</span><br>reached <b class="reached">decide</b><br><span class="run-at" title="started 2026-11-24 09:52 UTC">09:52</span> · <a href="${BOB_RUN_URL}" target="_blank" rel="noopener">the run</a><div class="runs"><span class="run-count">5 runs</span> · tries: <span class="tries">enrich 3, decide 1</span></div></td>`,
    );
  });

  it.each([
    [{ verdict: 'as-asked' }, '<span class="run-verdict as-asked">as asked</span>'],
    [{ verdict: 'waiting', status: 'waiting' }, '<span class="run-verdict waiting">waiting</span>'],
    [{ verdict: 'cannot-tell' }, '<span class="run-verdict cannot-tell">cannot tell</span>'],
    // An unmet run whose stage the tutor could not name still says unmet.
    [{ verdict: 'unmet', unmet_stage: null }, '<span class="run-verdict unmet">unmet</span>'],
    [{ reached: null }, 'reached <b class="reached">no stage</b>'],
    [{ reached: 'rollback' }, 'reached <b class="reached">rollback</b>'],
  ] as const)('%j shows %s', (over, shown) => {
    expect(runCell(one(over))).toContain(shown);
  });

  it('a run of another day says its date; one run is “1 run”, without tries when none were taken', () => {
    const cell = runCell(runsFile([tutorRun('3', '2026-11-23T16:05:00.000Z')]));
    expect(cell).toContain('<span class="run-at" title="started 2026-11-23 16:05 UTC">11-23 16:05</span>');
    expect(cell).toContain('<div class="runs"><span class="run-count">1 run</span></div>');
  });

  it('its link only when it is a web address, and every value escaped', () => {
    const evil = `http://127.0.0.1:5601/x"><img src=x onerror=alert(1)>`;
    const quoted = runCell(one({ url: evil }));
    expect(quoted).toContain('<a href="http://127.0.0.1:5601/x%22%3E%3Cimg%20src=x%20onerror=alert(1)%3E"');
    expect(quoted).not.toContain('<img');
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'not a url', null]) {
      const cell = runCell(one({ url }));
      expect(cell).toContain('reached <b class="reached">decide</b>');
      expect(cell).not.toContain('<a ');
      expect(cell).not.toContain('javascript:');
    }
  });

  it('a file that holds no run yet shows nothing; one whose runs aged out shows the count and tries', () => {
    expect(runCell(runsFile([]))).toBe('<td class="run"></td>');
    expect(runCell({ ...runsFile([]), total: 60, tries: { block: 2 } })).toBe(
      '<td class="run"><div class="runs"><span class="run-count">60 runs</span> · tries: <span class="tries">block 2</span></div></td>',
    );
  });
});

describe('class.csv’s run columns', () => {
  it('after every column there was, the last run and a tries column per stage', () => {
    const row = csvRow(BOB_RUNS);
    expect(RUN_COLUMNS.map((c) => [c, row[c]])).toEqual([
      ['runs', '5'],
      ['last_run_started_at', '2026-11-24T09:52:30.000Z'],
      ['last_run_reached', 'decide'],
      ['last_run_verdict', 'unmet'],
      ['last_run_unmet_stage', 'enrich'],
      ['last_run_url', BOB_RUN_URL],
      ...STAGE_NAMES.map((s) => [`${s}_tries`, s === 'enrich' ? '3' : s === 'decide' ? '1' : '0']),
    ]);
    const header = renderCsv(buildClassReport(ann(BOB_RUNS)))
      .split('\r\n')[0]
      ?.split(',');
    expect(header?.slice(-RUN_COLUMNS.length)).toEqual(RUN_COLUMNS);
    expect(header?.indexOf('runs')).toBe(4 + 2 * STAGE_NAMES.length + 6);
  });

  it('no run yet: its count and tries are 0, its last run empty; its link is data, never a formula', () => {
    const none = csvRow(runsFile([]));
    expect(RUN_COLUMNS.map((c) => none[c])).toEqual(['0', '', '', '', '', '', ...STAGE_NAMES.map(() => '0')]);
    expect(csvRow(one({ url: '=HYPERLINK("x")' })).last_run_url).toBe(`"'=HYPERLINK(""x"")"`);
  });
});
