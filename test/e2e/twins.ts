/**
 * The simulator held to n8n ("twins"), run by test/e2e/check.sh inside the suite's n8n (test/e2e/run.sh):
 * every scenario of the stage checker (`--stage all`) and every case of the acceptance matrix, once on the
 * pinned n8n with the guide's workflows published, and once on the simulator (app/simulator) running the
 * same workflows against the same mock API (the same build, dist/app/api/main.js) with the same approval
 * limit; each scenario's final destination state compared after normalising (twins-compare.ts). One line
 * per scenario, `same` or its first difference, and a total; exit 1 on any difference, or when any
 * expected scenario or case was not compared (none compared included), 2 when it could not run.
 * The two sides run at the same time, the simulator's against a mock API of its own started here: every
 * scenario resets its mock API first and reads only that one's state, so a side's state is what its own
 * workflows wrote, and the simulator's two approval limits are waited for while n8n works, not after it.
 * TWINS_SIDES=sequential runs them one after the other on run.sh's one mock API instead (as it was).
 *   npx tsx test/e2e/twins.ts
 * Env: API_URL, N8N_URL, N8N_API_KEY, APPROVAL_TIMEOUT_SECONDS (run.sh's); TWINS_CHECK_REPORT (the n8n
 * side's check report, default reports/e2e-check-reference.json), TWINS_REPORT (default
 * reports/e2e-twins.json); TWINS_CHANGE_NODE=1 or a variant's name (app/check/variants.ts): the simulator's
 * copy has that variant's nodes changed (1: block-for-an-hour, one node), to show that twins fails then.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { CASE_NAMES } from '../../app/acceptance/verdict.js';
import { REFERENCE_VARIANTS } from '../../app/check/variants.js';
import { scenariosFor, stagesUpTo } from '../../app/judges/scenarios.js';
import { compareSides, expectedNames, formatLines, uncompared } from './twins-compare.js';
import { collectStates, type Side, type SideRun } from './twins-run.js';

const DEFAULT_CHANGE = 'block-for-an-hour';

function need(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    console.error(`twins: ${name} is not set (run inside test/e2e/run.sh, as test/e2e/check.sh does)`);
    process.exit(2);
  }
  return value;
}

const mockApiUrl = need('API_URL');
const n8nUrl = need('N8N_URL');
const approvalTimeoutSeconds = Number(need('APPROVAL_TIMEOUT_SECONDS'));
if (!Number.isInteger(approvalTimeoutSeconds) || approvalTimeoutSeconds < 1) {
  console.error('twins: APPROVAL_TIMEOUT_SECONDS must be a whole number of seconds');
  process.exit(2);
}
const checkReport = process.env.TWINS_CHECK_REPORT ?? 'reports/e2e-check-reference.json';
const reportPath = process.env.TWINS_REPORT ?? 'reports/e2e-twins.json';
const changeKnob = process.env.TWINS_CHANGE_NODE ?? '';
const changeName =
  changeKnob === '' || changeKnob === '0' ? null : changeKnob === '1' ? DEFAULT_CHANGE : changeKnob;
const change = Object.entries(REFERENCE_VARIANTS).find(([name]) => name === changeName)?.[1];
if (changeName !== null && change === undefined) {
  console.error(
    `twins: TWINS_CHANGE_NODE=${changeKnob}: 1 or one of ${Object.keys(REFERENCE_VARIANTS).join(', ')}`,
  );
  process.exit(2);
}

const log = (line: string) => console.error(`[twins] ${line}`);
const quiet = { out: () => {}, err: () => {} };
const sequential = process.env.TWINS_SIDES === 'sequential';
const run = (side: string, api: string, check: NonNullable<SideRun['check']>): SideRun => ({
  mockApiUrl: api,
  approvalTimeoutSeconds,
  check,
  cases: CASE_NAMES,
  log: (line) => log(`${side}: ${line}`),
});

/** A mock API of the simulator's own: the suite's build on a free loopback port, stopped at exit. */
async function startMockApi(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ['dist/app/api/main.js', '--host', '127.0.0.1', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = () => {
    child.kill('SIGTERM');
  };
  process.once('exit', stop);
  let printed = '';
  const url = await new Promise<string | null>((resolve) => {
    const timer = setTimeout(() => resolve(null), 15_000);
    child.stdout.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
      const found = /listening on (http:\/\/[0-9.:]+)/.exec(printed)?.[1];
      if (found !== undefined) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    child.once('exit', () => resolve(null));
  });
  if (url === null) {
    stop();
    console.error(`twins: the simulator's mock API (dist/app/api/main.js) did not start: ${printed.trim()}`);
    process.exit(2);
  }
  return { url, stop };
}

const began = performance.now();
const simulatorApi = sequential ? null : await startMockApi();
log(
  `n8n at ${n8nUrl} and the simulator, mock API ${mockApiUrl}` +
    (simulatorApi
      ? ` (the simulator's: ${simulatorApi.url}, both sides at once)`
      : ' (one side after the other)') +
    `, approval limit ${approvalTimeoutSeconds} s` +
    (change ? `; the simulator's copy changed: ${changeName} (${change.mistake})` : ''),
);
// n8n's checker run is the suite's check of the reference workflow (its report, its lines).
const n8nSide: Side = { kind: 'n8n', n8nUrl, apiKey: process.env.N8N_API_KEY };
const n8nStates = () =>
  collectStates(
    n8nSide,
    run('n8n', mockApiUrl, {
      stage: 'all',
      only: false,
      reportPath: checkReport,
      output: { out: (l) => console.log(l), err: (l) => console.error(l) },
    }),
  );
const simulatorStates = () =>
  collectStates(
    { kind: 'simulator', variant: change?.reference },
    run('simulator', simulatorApi?.url ?? mockApiUrl, {
      stage: 'all',
      only: false,
      reportPath: reportPath.replace(/\.json$/, '-simulator-check.json'),
      output: quiet,
    }),
  );
const [n8n, simulator] = sequential
  ? [await n8nStates(), await simulatorStates()]
  : await Promise.all([n8nStates(), simulatorStates()]);
simulatorApi?.stop();

const lines = compareSides(n8n.states, simulator.states);
const printed = formatLines(lines, ['n8n', 'simulator']);
for (const line of printed) console.log(`twins: ${line}`);
const differ = lines.filter((l) => l.difference !== null).length;
// Every scenario of the checker's `all` and every case of the matrix must have been compared: a run that
// compared nothing (or fewer) proved nothing about the rest, and fails.
const expected = expectedNames(
  scenariosFor(stagesUpTo('all')).map((s) => s.id),
  CASE_NAMES,
);
const missing = uncompared(lines, expected);
console.log(
  `twins: ${expected.length - missing.length} of the ${expected.length} expected scenario(s) compared` +
    (missing.length > 0 ? `; NOT compared (neither side ran them): ${missing.join(', ')}` : ''),
);
const verdicts = (side: typeof n8n) =>
  `checker ${side.check?.passed ? 'passed' : 'FAILED'}, matrix ${side.matrix.filter((c) => c.verdict === 'pass').length}/${side.matrix.length} passed`;
log(`n8n: ${verdicts(n8n)}; simulator: ${verdicts(simulator)}`);
log(`${((performance.now() - began) / 1000).toFixed(1)} s in all`);

mkdirSync(dirname(reportPath), { recursive: true });
writeFileSync(
  reportPath,
  `${JSON.stringify(
    {
      kind: 'twins',
      sides: ['n8n', 'simulator'],
      changed_node: changeName,
      approval_timeout_seconds: approvalTimeoutSeconds,
      sides_at_once: !sequential,
      same: differ === 0 && missing.length === 0,
      expected: expected.length,
      not_compared: missing,
      scenarios: lines.map((l) => ({
        scenario: l.scenario,
        same: l.difference === null,
        difference: l.difference,
      })),
      states: Object.fromEntries(
        [...n8n.states.keys(), ...simulator.states.keys()].map((k) => [
          k,
          { n8n: n8n.states.get(k), simulator: simulator.states.get(k) },
        ]),
      ),
    },
    null,
    2,
  )}\n`,
);
process.exit(differ === 0 && missing.length === 0 ? 0 : 1);
