/**
 * The class report: the model (trainee × stage), and the CLI's three formats from one stdin document,
 * with its refusals. The page in a browser: class-report.browser.ts (make test-console).
 */
import { describe, expect, it } from 'vitest';
import { historyLineOf } from '../../app/check-report/history.js';
import { buildClassReport } from '../../app/classroom/class-report.js';
import { renderCsv, renderHistoryCsv } from '../../app/classroom/render-csv.js';
import { renderHtml } from '../../app/classroom/render-html.js';
import { STAGE_NAMES } from '../../app/stages/stages.js';
import { spawnNode } from '../helpers/service-process.js';
import { BOB_RUN_URL, CLASS, checkReport, ENRICH_HINT, runAt, STOPPED_LINE } from './class-fixture.js';

const AT = '2026-11-24T09:41:07.000Z';

async function cli(args: string[], stdin: string) {
  const proc = spawnNode('app/classroom/report-cli.ts', args);
  proc.child.stdin.end(stdin);
  const { code } = await proc.exited;
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

const row = (name: string) => {
  const found = buildClassReport(CLASS).labs.find((l) => l.name === name);
  if (found === undefined) throw new Error(`no ${name}`);
  return found;
};
const verdicts = (name: string) => STAGE_NAMES.map((s) => row(name).stages[s].verdict);

describe('the class as a grid', () => {
  it('a trainee who passed every stage; a stage with nothing judged is UNJUDGED, not PASS', () => {
    expect(verdicts('alice')).toEqual(['unjudged', ...STAGE_NAMES.slice(1).map(() => 'pass')]);
    expect(row('alice')).toMatchObject({
      passed: true,
      next_stage: null,
      next_hint: null,
      passed_in_a_row: 0,
    });
  });

  it('a failed stage carries its first hint; stages beyond the one asked for are not checked', () => {
    expect(verdicts('bob')).toEqual([
      'pass',
      'pass',
      'fail',
      'pass',
      'pass',
      ...STAGE_NAMES.slice(5).map(() => 'not_checked'),
    ]);
    expect(row('bob')).toMatchObject({
      check: 'checked',
      checked_at: '2026-11-24T09:41:07.000Z',
      requested: 'decide',
      next_stage: 'enrich',
      next_hint: ENRICH_HINT,
      passed_in_a_row: 2,
    });
  });

  it('a check that stopped (nothing listens) shows its one line, and no later stage', () => {
    expect(verdicts('carol')).toEqual(['fail', ...STAGE_NAMES.slice(1).map(() => 'not_checked')]);
    expect(row('carol')).toMatchObject({ stopped: STOPPED_LINE, next_hint: STOPPED_LINE, passed: false });
  });

  it('a lab that is stopped keeps its last check; a lab never checked says so', () => {
    expect(row('dave')).toMatchObject({
      state: 'stopped',
      up: false,
      check: 'checked',
      requested: 'validate',
      passed_in_a_row: 2,
    });
    // The document's first shape (`up: true`) reads as running.
    expect(row('erin')).toMatchObject({
      state: 'running',
      up: true,
      check: 'never',
      checked_at: null,
      passed: null,
    });
    expect(verdicts('erin').every((v) => v === 'not_checked')).toBe(true);
    expect(buildClassReport(CLASS).totals).toEqual({
      labs: 6,
      running: 3,
      checked: 4,
      all_passed: 1,
      checks: 0,
      runs: 5,
    });
    expect(buildClassReport(CLASS).labs.map((l) => l.state)).toEqual([
      'running',
      'running',
      'broken',
      'stopped',
      'running',
      'absent',
    ]);
  });

  it('without a history, a stage first passed in the last check (a report written before the history)', () => {
    expect(row('alice').stages.validate.first_passed_at).toBe(AT);
    expect(row('alice').stages.webhook.first_passed_at).toBeNull();
    expect(row('bob').stages.enrich.first_passed_at).toBeNull();
  });

  it('a report that is not the checker’s marks that lab unreadable, not the class', () => {
    const report = buildClassReport({
      generated_at: CLASS.generated_at,
      labs: [{ name: 'gina', up: true, editor_url: null, console_url: null, report: { passed: 'maybe' } }],
    });
    expect(report.labs[0]).toMatchObject({ check: 'unreadable', checked_at: null });
  });
});

/** A check of ann's at `at` (10:mm of the class's day): failing first at `node`, or passing. */
const annCheck = (minute: number, node: string | null) =>
  checkReport('decide', {
    finishedAt: `2026-11-24T10:${String(minute).padStart(2, '0')}:00.000Z`,
    ...(node === null ? {} : { failing: 'enrich', hint: ENRICH_HINT, run: runAt(node, String(minute)) }),
  });
/** ann's class: her history (oldest first, each a check as the checker wrote its line) and her last report. */
const ann = (history: unknown[], report: unknown) =>
  buildClassReport({
    generated_at: CLASS.generated_at,
    labs: [{ name: 'ann', state: 'running', editor_url: null, console_url: null, report, history }],
  });
const annRow = (history: unknown[], report: unknown) => {
  const row = ann(history, report).labs[0];
  if (row === undefined) throw new Error('no ann');
  return row;
};
/** A history line as the checker wrote it before it named nodes: no first_node, no first_run_url. */
const olderLine = (minute: number) => {
  const { first_node: _node, first_run_url: _url, ...line } = historyLineOf(annCheck(minute, 'Record'));
  return line;
};

describe('stuck at a node', () => {
  it('since the first of the last checks in a row that failed first at the same node', () => {
    const checks = [annCheck(30, 'Enrich'), annCheck(35, null), annCheck(38, 'Enrich')];
    const stuck = [annCheck(42, 'Record'), annCheck(50, 'Record'), annCheck(55, 'Record')];
    const row = annRow([...checks, ...stuck].map(historyLineOf), stuck[2]);
    expect(row).toMatchObject({
      next_stage: 'enrich',
      next_hint: ENRICH_HINT,
      next_node: 'Record',
      next_run_url: 'http://127.0.0.1:5601/workflow/wf1/executions/55',
      stuck: { since: '2026-11-24T10:42:00.000Z', checks: 3 },
    });
  });

  it('a pass, another node, or a line from before nodes were named ends the run; none when the last passed', () => {
    const passed = [annCheck(40, 'Record'), annCheck(41, null), annCheck(42, 'Record')];
    expect(annRow(passed.map(historyLineOf), passed[2]).stuck).toEqual({
      since: '2026-11-24T10:42:00.000Z',
      checks: 1,
    });
    const older = [
      olderLine(40),
      historyLineOf(annCheck(44, 'Record')),
      historyLineOf(annCheck(47, 'Record')),
    ];
    expect(annRow(older, annCheck(47, 'Record')).stuck).toEqual({
      since: '2026-11-24T10:44:00.000Z',
      checks: 2,
    });
    const fixed = [annCheck(40, 'Record'), annCheck(45, null)];
    expect(annRow(fixed.map(historyLineOf), fixed[1])).toMatchObject({ next_node: null, stuck: null });
  });

  it('older lines only: the board still reads them, and names no node', () => {
    const row = annRow([olderLine(40), olderLine(45)], null);
    expect(row).toMatchObject({ check: 'checked', next_stage: 'enrich', next_node: null, stuck: null });
    expect(row.history_unreadable).toBe(0);
  });

  it('from the history alone, from a report alone (that one check), and from a report the history missed', () => {
    const lines = [annCheck(42, 'Record'), annCheck(50, 'Record')].map(historyLineOf);
    expect(annRow(lines, null)).toMatchObject({
      next_node: 'Record',
      stuck: { since: '2026-11-24T10:42:00.000Z', checks: 2 },
    });
    expect(annRow([], annCheck(50, 'Record')).stuck).toEqual({
      since: '2026-11-24T10:50:00.000Z',
      checks: 1,
    });
    // A last check the history missed (its line not written) still counts, once, after the history's run;
    // a history line after the report shown (the report is the host's older copy) is not walked.
    expect(annRow(lines, annCheck(55, 'Record')).stuck).toEqual({
      since: '2026-11-24T10:42:00.000Z',
      checks: 3,
    });
    expect(annRow(lines, annCheck(42, 'Record')).stuck).toEqual({
      since: '2026-11-24T10:42:00.000Z',
      checks: 1,
    });
  });

  it('the page shows it beside the hint, escaped, its run linked only when it is a web address', () => {
    const evil = '<img src=x onerror=alert(1)>Record';
    const stuck = [annCheck(42, evil), annCheck(50, evil)];
    const page = String(renderHtml(ann(stuck.map(historyLineOf), stuck[1])));
    expect(page).toContain(
      '<span class="stage-name">enrich:</span> GET /identity/lab-admin was never called: after Validate, ask the identity system about the alert’s user<div class="stuck"',
    );
    expect(page).toContain(
      'stuck at <b class="node">&lt;img src=x onerror=alert(1)&gt;Record</b> since 10:42 <span class="checks">(2 checks)</span> · <a href="http://127.0.0.1:5601/workflow/wf1/executions/50" target="_blank" rel="noopener">the run</a></div>',
    );
    expect(page).not.toContain('<img');
    const bad = checkReport('decide', {
      failing: 'enrich',
      finishedAt: '2026-11-24T10:50:00.000Z',
      run: runAt('Record', '50', 'javascript:alert(1)'),
    });
    const unlinked = String(renderHtml(ann([], bad)));
    expect(unlinked).toContain(
      'stuck at <b class="node">Record</b> since 10:50 <span class="checks">(1 check)</span></div>',
    );
    expect(unlinked).not.toContain('javascript:');
    // A check without a node (a report from before): the hint alone, as before.
    const before = String(
      renderHtml(ann([], checkReport('decide', { failing: 'enrich', hint: ENRICH_HINT }))),
    );
    expect(before).toContain(`<span class="stage-name">enrich:</span> ${ENRICH_HINT}</td>`);
    expect(before).not.toContain('class="stuck"');
  });

  it('the CSVs carry the node, since when, and the run', () => {
    const stuck = [annCheck(42, 'Record'), annCheck(50, 'Record')];
    const report = ann(stuck.map(historyLineOf), stuck[1]);
    const row = renderCsv(report).split('\r\n')[1];
    expect(row).toContain(
      `,enrich,"${ENRICH_HINT}",Record,2026-11-24T10:42:00.000Z,http://127.0.0.1:5601/workflow/wf1/executions/50,2,`,
    );
    const history = renderHistoryCsv(report).split('\r\n');
    expect(history[0]).toMatch(/,first_failed,first_hint,first_node,first_run_url$/);
    expect(history[1]).toMatch(/,Record,http:\/\/127\.0\.0\.1:5601\/workflow\/wf1\/executions\/42$/);
    const older = renderHistoryCsv(ann([olderLine(40)], null)).split('\r\n');
    expect(older[1]).toMatch(/,enrich,"[^"]*",,$/);
  });
});

describe('report-cli', () => {
  const input = JSON.stringify(CLASS);

  it('--format csv: one row per trainee, one column per stage', async () => {
    const { code, stdout, stderr } = await cli(['--format', 'csv'], input);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      `trainee,lab_state,checked_at,requested,${STAGE_NAMES.join(',')},next_stage,next_hint,next_node,stuck_since,next_run_url,checks,${STAGE_NAMES.map((s) => `${s}_first_passed`).join(',')},runs,last_run_started_at,last_run_reached,last_run_verdict,last_run_unmet_stage,last_run_url,${STAGE_NAMES.map((s) => `${s}_tries`).join(',')}`,
    );
    expect(lines[2]).toBe(
      `bob,running,${AT},decide,PASS,PASS,FAIL,PASS,PASS,not checked,not checked,not checked,not checked,not checked,not checked,enrich,"${ENRICH_HINT}",,,,0,${AT},${AT},,${AT},${AT}${','.repeat(6)},5,2026-11-24T09:52:30.000Z,decide,unmet,enrich,${BOB_RUN_URL},0,0,3,0,1,0,0,0,0,0,0`,
    );
    expect(lines[5]).toMatch(/^erin,running,never checked,,not checked,/);
    // No runs file, and one that is not the tutor's: every run column empty.
    expect(lines[5]).toMatch(/,,,,,,,,,,,,,,,,,$/);
    expect(lines[3]).toMatch(/,,,,,,,,,,,,,,,,,$/);
    expect(stdout).toBe(renderCsv(buildClassReport(CLASS)));
  });

  it('quotes CSV fields and never lets a cell start a formula', () => {
    const csv = renderCsv(
      buildClassReport({
        generated_at: CLASS.generated_at,
        labs: [
          {
            name: '=HYPERLINK("x")',
            up: true,
            editor_url: null,
            console_url: null,
            report: checkReport('webhook', {
              failing: 'webhook',
              hint: 'a, "b"',
              run: runAt('=Record', '9', 'javascript:alert(1)'),
            }),
          },
        ],
      }),
    );
    expect(csv.split('\r\n')[1]).toBe(
      `"'=HYPERLINK(""x"")",running,${AT},webhook,FAIL,${Array(10).fill('not checked').join(',')},webhook,"a, ""b""",'=Record,${AT},javascript:alert(1),0${','.repeat(11 + 17)}`,
    );
  });

  it('--format json: the model, machine-readable', async () => {
    const { code, stdout } = await cli(['--format', 'json'], input);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual(JSON.parse(JSON.stringify(buildClassReport(CLASS))));
  });

  it('--format html (the default): one self-contained page, no script, every name escaped', async () => {
    const { code, stdout } = await cli([], input);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^<!doctype html>/);
    expect(stdout).not.toMatch(/<script|<link|src=|@import|url\(/i);
    expect(stdout).toContain('frank &lt;script&gt;');
    expect(stdout).toContain(ENRICH_HINT.replace('’', '’'));
  });

  it.each([
    [
      ['--format', 'pdf'],
      '{}',
      /^class-report: --format must be html, json, csv or history-csv, not "pdf"\n/,
    ],
    [['--saved', '/tmp'], '{}', /^class-report: --saved and --states go with --labs\n/],
    [['--bogus'], '{}', /^class-report: Unknown option '--bogus'/],
    [['--format', 'csv'], 'not json', /^class-report: stdin is not JSON/],
    [
      ['--format', 'csv'],
      '{"generated_at":"2026-11-24T10:02:00Z"}',
      /^class-report: stdin is not a class document: labs: /,
    ],
    [
      ['--format', 'csv'],
      '{"generated_at":"yesterday","labs":[]}',
      /^class-report: stdin is not a class document: generated_at: /,
    ],
    [
      ['--format', 'csv'],
      '{"generated_at":"2026-11-24T10:02:00Z","labs":[{"name":"a"}]}',
      /labs\.0\.state: a lab needs its state \(or up\)/,
    ],
  ])('refuses %j with %j: one line, exit 2, nothing on stdout', async (args, stdin, message) => {
    const { code, stdout, stderr } = await cli(args, stdin);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
  });
});
