// make e2e-check's busy-host proof, run by test/e2e/run.sh as its runner (API_URL, N8N_URL, N8N_API_KEY):
// the checker reaches n8n through this proxy, which pauses n8n (SIGSTOP) as soon as the checker has seen
// the first alert's run running (so that run is in flight and its id known), and resumes it (SIGCONT)
// PAUSE_S seconds later, longer than the checker's phase limit. The run that did not finish in time must
// be UNJUDGED ("n8n did not run it within N s"), never FAIL, with its run's id; nothing may FAIL; exit 0.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const N8N = new URL(process.env.N8N_URL);
const PAUSE_S = Number(process.env.PAUSE_S ?? 40);
const REPORT = process.env.BUSY_REPORT ?? 'reports/e2e-check-busy.json';
const log = (line) => console.error(`[check-busy] ${line}`);

// n8n is the process listening on its port (started by run.sh; its id is not passed to the runner).
const listening = execFileSync('ss', ['-ltnpH', `sport = :${N8N.port}`], { encoding: 'utf8' });
const pid = Number(/pid=(\d+)/.exec(listening)?.[1]);
if (!Number.isInteger(pid)) throw new Error(`no process listens on ${N8N.port}: ${listening}`);

let paused = false;
const proxy = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    try {
      const answer = await fetch(new URL(req.url, N8N), {
        method: req.method,
        headers: Object.fromEntries(
          Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'connection'),
        ),
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      });
      const body = Buffer.from(await answer.arrayBuffer());
      // The checker has just seen the first stimulus's run running (it knows its id): n8n stops now.
      if (
        !paused &&
        /^\/api\/v1\/executions\?.*status=running/.test(req.url) &&
        body.includes('x-soar-stimulus')
      ) {
        paused = true;
        process.kill(pid, 'SIGSTOP');
        log(`n8n (pid ${pid}) paused with a run in flight; resumed in ${PAUSE_S} s`);
        setTimeout(() => {
          process.kill(pid, 'SIGCONT');
          log('n8n resumed');
        }, PAUSE_S * 1000);
      }
      res.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'application/json',
      });
      res.end(body);
    } catch (error) {
      res.writeHead(502).end(String(error));
    }
  });
});
await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const via = `http://127.0.0.1:${proxy.address().port}`;

const checker = spawn(
  process.execPath,
  [
    'dist/app/check/cli.js',
    '--stage',
    'decide',
    '--only',
    '--target',
    'n8n',
    '--api',
    process.env.API_URL,
    '--n8n',
    via,
    '--report',
    REPORT,
  ],
  { stdio: ['ignore', 'inherit', 'inherit'] },
);
const code = await new Promise((resolve) => checker.on('exit', (c) => resolve(c)));
proxy.close();
process.kill(pid, 'SIGCONT');

const report = JSON.parse(readFileSync(REPORT, 'utf8'));
const failed = report.results.filter((r) => r.status === 'fail');
const late = report.results.filter(
  (r) =>
    r.status === 'unjudged' &&
    /^n8n did not run it within \d+ s \(the host is busy: check again\)$/.test(r.hint ?? ''),
);
const problems = [
  ...(code === 0 ? [] : [`the checker exited ${code}, not 0`]),
  ...failed.map((r) => `FAIL on a paused n8n: ${r.stimulus}: ${r.expectation}`),
  ...(late.length > 0 ? [] : ['no UNJUDGED "n8n did not run it within N s" line']),
  ...late
    .filter((r) => r.run?.execution_id == null)
    .map((r) => `UNJUDGED without its run's id: ${r.stimulus}`),
];
for (const p of problems) log(p);
process.exit(problems.length === 0 ? 0 : 1);
