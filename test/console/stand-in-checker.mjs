#!/usr/bin/env node
/**
 * A stand-in for the stage checker (CONSOLE_CHECKER in the console's tests): records the command line and
 * the environment it was given beside its --report file (<report>.argv.json), prints a few lines, then
 * by --stage: `approve` never finishes (a check that runs too long); `validate` fails (exit 1) with the run
 * it is about (an address on --n8n, a node name and a why line holding markup, to be shown as text);
 * `case-lookup` fails with no run (a report as the checker wrote it before runs were pointed at);
 * `block` fails with a run whose address is no web address (never a link); any other stage passes. Each
 * writes a report the console's last-check panel shows, judging the stage with every stage before it, or
 * with --only the stage alone, as the checker does.
 */
import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const argv = process.argv.slice(2);
const flag = (name) => argv[argv.indexOf(name) + 1];
const report = flag('--report');
const stage = flag('--stage');
writeFileSync(`${report}.argv.json`, JSON.stringify({ argv, env: process.env, pid: process.pid }));
process.stdout.write(`stand-in checker: checking ${stage}\n`);
await sleep(300);
process.stdout.write(`PASS      ${stage}  first expectation\n`);
process.stderr.write('stand-in checker: a line on stderr\n');
// Bounded, so a broken console cannot leave it behind for long.
if (stage === 'approve') await sleep(60_000);
await sleep(300);
const FAILING = ['validate', 'case-lookup', 'block'];
const status = FAILING.includes(stage) ? 'fail' : 'pass';
const STAGES = ['webhook', 'validate', 'enrich', 'case-lookup', 'decide', 'approve', 'block', 'record'];
const judged = argv.includes('--only') ? [stage] : STAGES.slice(0, STAGES.indexOf(stage) + 1);
const RUNS = {
  validate: {
    execution_id: '42',
    url: `${flag('--n8n')}/workflow/wf-7/executions/42`,
    status: 'error',
    node: '<img src=x onerror="document.title=1">Record',
    why: 'Record errored: <b>the case system refused</b> & gave up',
  },
  block: {
    execution_id: '43',
    url: 'javascript:document.title=2',
    status: 'error',
    node: 'Block',
    why: 'Block errored',
  },
};
const at = new Date().toISOString();
writeFileSync(
  report,
  JSON.stringify({
    target: 'n8n',
    requested: stage,
    passed: status === 'pass',
    finished_at: at,
    stages: (stage === 'all' ? STAGES : judged).map((s) => {
      const failed = s === stage && status === 'fail';
      return {
        stage: s,
        status: failed ? 'fail' : 'pass',
        counts: { pass: 1, fail: failed ? 1 : 0, unjudged: 0 },
      };
    }),
    results: [
      {
        stage,
        stimulus: 'stand-in alert',
        expectation: 'the stand-in expectation',
        status,
        hint: status === 'fail' ? 'the stand-in hint' : null,
        detail: null,
        at,
        ...(RUNS[stage] ? { run: RUNS[stage] } : {}),
      },
    ],
  }),
);
process.stdout.write(`${status.toUpperCase()}      ${stage}  the stand-in expectation\n`);
process.exit(status === 'pass' ? 0 : 1);
