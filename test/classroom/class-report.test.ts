/**
 * The class report: the model (trainee × stage), and the CLI's three formats from one stdin document,
 * with its refusals. The page in a browser: class-report.browser.ts (make test-console).
 */
import { describe, expect, it } from 'vitest';
import { buildClassReport } from '../../app/classroom/class-report.js';
import { renderCsv } from '../../app/classroom/render-csv.js';
import { STAGE_NAMES } from '../../app/harness/check-report.js';
import { spawnNode } from '../helpers/service-process.js';
import { CLASS, checkReport, ENRICH_HINT, STOPPED_LINE } from './class-fixture.js';

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

describe('report-cli', () => {
  const input = JSON.stringify(CLASS);

  it('--format csv: one row per trainee, one column per stage', async () => {
    const { code, stdout, stderr } = await cli(['--format', 'csv'], input);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      `trainee,lab_state,checked_at,requested,${STAGE_NAMES.join(',')},next_stage,next_hint,checks,${STAGE_NAMES.map((s) => `${s}_first_passed`).join(',')}`,
    );
    expect(lines[2]).toBe(
      `bob,running,${AT},decide,PASS,PASS,FAIL,PASS,PASS,not checked,not checked,not checked,not checked,not checked,not checked,enrich,"${ENRICH_HINT}",0,${AT},${AT},,${AT},${AT}${','.repeat(6)}`,
    );
    expect(lines[5]).toMatch(/^erin,running,never checked,,not checked,/);
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
            report: checkReport('webhook', { failing: 'webhook', hint: 'a, "b"' }),
          },
        ],
      }),
    );
    expect(csv.split('\r\n')[1]).toBe(
      `"'=HYPERLINK(""x"")",running,${AT},webhook,FAIL,${Array(10).fill('not checked').join(',')},webhook,"a, ""b""",0${','.repeat(11)}`,
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
