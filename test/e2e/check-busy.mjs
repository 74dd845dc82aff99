// make e2e-check's busy-host proof, run by test/e2e/check.sh inside test/e2e/run.sh (API_URL, N8N_URL,
// N8N_API_KEY): the checker reaches n8n through this proxy, which pauses n8n (SIGSTOP) as soon as the
// checker has seen the first alert's run running (so that run is in flight and its id known), and resumes
// it (SIGCONT) PAUSE_S seconds later, longer than the checker's phase limit. The run that did not finish in
// time must be UNJUDGED ("n8n did not run it within N s"), never FAIL, with its run's id; nothing may
// FAIL; exit 0.
// The guide's workflow writes its case within a few hundred milliseconds, often before the checker first
// sees its run: so that the run is surely unfinished when n8n is paused, the workflows swapped in here
// (docker/workflows/*.json, through `cli.js swap` into BUSY_DIR) reach the mock API through a second proxy
// that holds the first run's first GET /identity until n8n is resumed. Nothing else is held or changed.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

const N8N = new URL(process.env.N8N_URL);
const API = process.env.API_URL;
const PAUSE_S = Number(process.env.PAUSE_S ?? 40);
const REPORT = process.env.BUSY_REPORT ?? 'reports/e2e-check-busy.json';
const DIR = process.env.BUSY_DIR ?? 'reports/e2e-check-busy';
const log = (line) => console.error(`[check-busy] ${line}`);

// n8n is the process listening on its port (started by run.sh; its id is not passed to the runner).
const listening = execFileSync('ss', ['-ltnpH', `sport = :${N8N.port}`], { encoding: 'utf8' });
const pid = Number(/pid=(\d+)/.exec(listening)?.[1]);
if (!Number.isInteger(pid)) throw new Error(`no process listens on ${N8N.port}: ${listening}`);

/** A loopback proxy to `base`; `hold(req)` may return a promise the forwarding waits for. */
async function proxyTo(base, { hold = () => null, seen = () => {} } = {}) {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      try {
        await hold(req);
        const answer = await fetch(new URL(req.url, base), {
          method: req.method,
          headers: Object.fromEntries(
            Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'connection'),
          ),
          ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
        });
        const body = Buffer.from(await answer.arrayBuffer());
        seen(req, body);
        res.writeHead(answer.status, {
          'content-type': answer.headers.get('content-type') ?? 'application/json',
        });
        res.end(body);
      } catch (error) {
        res.writeHead(502).end(String(error));
      } finally {
        req.emit('answered');
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${server.address().port}` };
}

// --- the workflows' way to the mock API: the first run's first identity look-up held until n8n resumes
let release;
const released = new Promise((resolve) => {
  release = resolve;
});
let held = false;
const toApi = await proxyTo(API, {
  hold: (req) => {
    if (held || !req.url.startsWith('/identity/')) return null;
    held = true;
    log(`the first run's ${req.method} ${req.url} held until n8n resumes`);
    return released;
  },
});
mkdirSync(DIR, { recursive: true });
const copies = readdirSync('docker/workflows')
  .filter((f) => f.endsWith('.json'))
  .map((f) => {
    const copy = join(DIR, f);
    const text = readFileSync(join('docker/workflows', f), 'utf8')
      .split('{{ $env.MOCK_API_URL }}')
      .join(toApi.url)
      .split('http://mock-api:8081')
      .join(toApi.url);
    writeFileSync(copy, text);
    return copy;
  });
execFileSync(process.execPath, ['dist/app/n8n/cli.js', 'swap', ...copies], {
  stdio: ['ignore', 'ignore', 'inherit'],
});
for (let i = 0; ; i++) {
  const answer = await fetch(new URL('/webhook/suspicious-login', N8N)).then((r) => r.text(), String);
  if (answer.includes('not registered for GET')) break;
  if (i === 120) throw new Error('the swapped-in workflow did not listen within 60 s');
  await new Promise((resolve) => setTimeout(resolve, 500));
}

// --- the checker's way to n8n: n8n paused once the checker has seen the held run running ---------------
// The checker asks for finished and running executions side by side: n8n is paused only once neither
// request is in flight, so that the look-up that saw the run running got both its answers (the run's id).
// The run is held (or will be, at its first identity look-up) whenever n8n is paused.
let paused = false;
let resumed = false;
let pauseWanted = false;
let inFlight = 0;
function pause() {
  if (resumed) return;
  paused = true;
  process.kill(pid, 'SIGSTOP');
  log(`n8n (pid ${pid}) paused with a run in flight; resumed in ${PAUSE_S} s`);
  setTimeout(resume, PAUSE_S * 1000);
}
function resume() {
  if (resumed) return;
  resumed = true;
  process.kill(pid, 'SIGCONT');
  release();
  if (paused) log('n8n resumed');
}
const toN8n = await proxyTo(N8N, {
  hold: (req) => {
    inFlight += 1;
    req.once('answered', () => {
      inFlight -= 1;
      if (pauseWanted && !paused && inFlight === 0) pause();
    });
    return null;
  },
  seen: (req, body) => {
    if (/^\/api\/v1\/executions\?.*status=running/.test(req.url) && body.includes('x-soar-stimulus'))
      pauseWanted = true;
  },
});

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
    API,
    '--n8n',
    toN8n.url,
    '--report',
    REPORT,
  ],
  { stdio: ['ignore', 'inherit', 'inherit'] },
);
const code = await new Promise((resolve) => checker.on('exit', (c) => resolve(c)));
resume();
toN8n.server.close();
toApi.server.close();

const report = JSON.parse(readFileSync(REPORT, 'utf8'));
const failed = report.results.filter((r) => r.status === 'fail');
const late = report.results.filter(
  (r) =>
    r.status === 'unjudged' &&
    /^n8n did not run it within \d+ s \(the host is busy: check again\)$/.test(r.hint ?? ''),
);
const problems = [
  ...(code === 0 ? [] : [`the checker exited ${code}, not 0`]),
  ...(paused ? [] : ['n8n was never paused: the checker never saw the held run running']),
  ...failed.map((r) => `FAIL on a paused n8n: ${r.stimulus}: ${r.expectation}`),
  ...(late.length > 0 ? [] : ['no UNJUDGED "n8n did not run it within N s" line']),
  ...late
    .filter((r) => r.run?.execution_id == null)
    .map((r) => `UNJUDGED without its run's id: ${r.stimulus}`),
];
for (const p of problems) log(p);
process.exit(problems.length === 0 ? 0 : 1);
