/**
 * A tool that fails inside the lab shows its whole error: the one line a trainer reads first stays first
 * (and as it was), and the tool's whole output follows it on stderr, each line indented by four spaces;
 * a tool that said one line, which the message quotes already, adds nothing. On a lab of fake-docker.sh,
 * whose tools fail on request with several lines (the first says why, the last is what the line quotes).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeLab, fakeLab, said } from './fake-lab.js';

let lab: FakeLab;
beforeEach(() => {
  lab = fakeLab('alice');
});
afterEach(() => lab.remove());

/** fake-docker.sh's failing tool, as the lab prints it below its line. */
const whole = (what: string) => [
  `    Error: ${what} failed: the first line says why`,
  '        at step (/app/dist/one.js:1:10)',
  '        at run (/app/dist/two.js:2:20)',
  `    ${what}: exit 1, the last line`,
];

describe('the n8n client failing in the tools container', () => {
  it('make reset: the line, then the client’s whole output; nothing reset', async () => {
    const r = await lab.lab(['reset'], { FAKE_TOOL_FAIL: 'stop-runs' });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(said(r)).toEqual([
      "lab: could not stop the unfinished workflow runs (the n8n client's stop-runs: exit 1, the last line); nothing was reset",
      ...whole("the n8n client's stop-runs"),
    ]);
    expect(lab.calls().filter((c) => c.includes('api-request'))).toEqual([]);
  });

  it('make up’s n8n set-up: the line, then the whole output', async () => {
    const r = await lab.fn(['n8n_setup'], { FAKE_TOOL_FAIL: 'setup' });
    expect(r.code).toBe(1);
    expect(said(r)).toEqual([
      "lab: could not set up n8n's login and API key: the n8n client's setup: exit 1, the last line",
      ...whole("the n8n client's setup"),
    ]);
  });

  it.each([
    ['unpublish', 'could not prepare the restore'],
    ['republish', 'the workflows are back, unpublished; publishing them again failed'],
  ])('make restore, %s failing: the line, then the whole output', async (command, line) => {
    lab.putWorkflow({ id: 'wf1', name: 'Triage', active: true });
    expect((await lab.lab(['save'])).code).toBe(0);
    const r = await lab.lab(['restore'], { FAKE_TOOL_FAIL: command });
    expect(r.code).toBe(1);
    expect(said(r).slice(-5)).toEqual([
      `lab: ${line}: the n8n client's ${command}: exit 1, the last line`,
      ...whole(`the n8n client's ${command}`),
    ]);
  });
});

describe('n8n’s own CLI failing in a one-off container', () => {
  it('make restore, the import failing: its whole log, not only its last three lines’ last', async () => {
    lab.putWorkflow({ id: 'wf1', name: 'Triage' });
    expect((await lab.lab(['save'], { FAKE_DATE: '2026-03-02T090000Z' })).code).toBe(0);
    const r = await lab.lab(['restore'], { FAKE_IMPORT_FAIL: '1', FAKE_DATE: '2026-03-02T093000Z' });
    expect(r.code).toBe(1);
    expect(said(r)).toEqual([
      'lab: n8n\'s import into lab alice failed: duplicate key value violates unique constraint "pk_workflow_entity" (what it held before is saved in saved/alice/2026-03-02T093000Z/)',
      '    Importing 1 workflows...',
      '    An error occurred while importing workflows. See log messages for details.',
      '    duplicate key value violates unique constraint "pk_workflow_entity"',
    ]);
  });

  it('make save, the export failing: the line, then n8n’s whole output (not tar’s complaint after it)', async () => {
    lab.putWorkflow({ id: 'wf1', name: 'Triage' });
    const r = await lab.lab(['save'], { FAKE_EXPORT_FAIL: 'stack' });
    expect(r.code).toBe(1);
    expect(said(r)).toEqual([
      "lab: could not save lab alice's workflows: n8n's export of lab alice failed: Error: connect ECONNREFUSED postgres:5432",
      '    There was an error initializing DB',
      '        at Start.init (/usr/local/lib/node_modules/n8n/dist/commands/base-command.js:104:19)',
      '    Error: connect ECONNREFUSED postgres:5432',
    ]);
  });

  it('make down, the save failing: refused in its line, the whole output below; forced, the same output', async () => {
    lab.putWorkflow({ id: 'wf1', name: 'Triage' });
    const n8nSaid = [
      '    There was an error initializing DB',
      '        at Start.init (/usr/local/lib/node_modules/n8n/dist/commands/base-command.js:104:19)',
      '    Error: connect ECONNREFUSED postgres:5432',
    ];
    const refused = await lab.lab(['down'], { FAKE_EXPORT_FAIL: 'stack' });
    expect(refused.code).toBe(1);
    expect(said(refused)).toEqual([
      "lab: nothing was removed: lab alice's workflows could not be saved (n8n's export of lab alice failed: Error: connect ECONNREFUSED postgres:5432); to remove it anyway, losing them: make down LAB=alice LAB_FORCE_DOWN=1",
      ...n8nSaid,
    ]);
    const forced = await lab.lab(['down'], { FAKE_EXPORT_FAIL: 'stack', LAB_FORCE_DOWN: '1' });
    expect(forced.code).toBe(0);
    expect(forced.stdout.split('\n')[0]).toBe(
      "lab: LAB_FORCE_DOWN=1: removing lab alice without a save (n8n's export of lab alice failed: Error: connect ECONNREFUSED postgres:5432)",
    );
    expect(forced.stderr.split('\n').filter((l) => l !== '')).toEqual(n8nSaid);
  });

  it('one line from n8n, quoted by the message: nothing repeated below it', async () => {
    lab.putWorkflow({ id: 'wf1', name: 'Triage' });
    const r = await lab.lab(['save'], { FAKE_EXPORT_FAIL: '1' });
    expect(said(r)).toEqual([
      "lab: could not save lab alice's workflows: n8n's export of lab alice failed: Error: connect ECONNREFUSED postgres:5432",
    ]);
  });
});

describe('the engine failing', () => {
  it('make down, a report that cannot be read: the line first, then what the reading container said', async () => {
    lab.putWorkflow({ id: 'wf1', name: 'Triage' });
    const r = await lab.lab(['down'], { FAKE_REPORT_FAIL: '1' });
    expect(r.code).toBe(1);
    expect(said(r)).toEqual([
      "lab: nothing was removed: lab alice's check reports could not be kept in reports/alice/ (could not keep check-last.json: reading the reports volume: exit 1, the last line); to remove it anyway, losing them: make down LAB=alice LAB_FORCE_DOWN=1",
      ...whole('reading the reports volume'),
    ]);
  });

  it('make stop: the line first, then compose’s whole output (it came before the line)', async () => {
    const r = await lab.lab(['stop'], { FAKE_COMPOSE_FAIL: 'stop' });
    expect(r.code).toBe(1);
    expect(said(r)).toEqual(['lab: could not stop lab alice', ...whole('compose stop')]);
  });
});
