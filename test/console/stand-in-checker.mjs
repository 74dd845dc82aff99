#!/usr/bin/env node
/**
 * A stand-in for the stage checker (CONSOLE_CHECKER in the console's tests): records the command line and
 * the environment it was given beside its --report file (<report>.argv.json), prints a few lines, then
 * by --stage: `approve` never finishes (a check that runs too long), `validate` fails (exit 1), any other
 * stage passes and writes a report the console's last-check panel shows.
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
const status = stage === 'validate' ? 'fail' : 'pass';
const at = new Date().toISOString();
writeFileSync(
  report,
  JSON.stringify({
    target: 'n8n',
    requested: stage,
    passed: status === 'pass',
    finished_at: at,
    stages: [{ stage, status, counts: { pass: 1, fail: status === 'fail' ? 1 : 0, unjudged: 0 } }],
    results: [
      {
        stage,
        stimulus: 'stand-in alert',
        expectation: 'the stand-in expectation',
        status,
        hint: status === 'fail' ? 'the stand-in hint' : null,
        detail: null,
        at,
      },
    ],
  }),
);
process.stdout.write(`${status.toUpperCase()}      ${stage}  the stand-in expectation\n`);
process.exit(status === 'pass' ? 0 : 1);
