#!/usr/bin/env node
/**
 * `npm run bench`: the built service (dist/app/main.js, whole pipeline on: validation, journal, access
 * checks, one JSON log line per request written to a file as in a container) against the physical limit,
 * a minimal node:http server (bench/minimal-server.mjs), with plain Hono on @hono/node-server as an anchor
 * (bench/hono-server.mjs). Load comes from `wrk` (C; installed from Debian when missing, autocannon only
 * as a fallback, said so), pinned to one core and the server to another when there are two or more.
 * Each run records the server's and the generator's CPU, and the load average before and after it, so a
 * reader can tell whether the generator, the server or the rest of the machine was the limit.
 * Rounds alternate the servers (A B C A B C ...); figures are medians over the rounds.
 * Also: cold start to the first /health, RSS idle and with both caps full. Writes bench/RESULTS.md.
 *
 * Settings (env): BENCH_QUICK=1 (or --quick: 1 round of 2 s, for a smoke run), BENCH_DURATION_S (5),
 * BENCH_ROUNDS (3), BENCH_CONNECTIONS (32), BENCH_ROUTES (comma list of route keys), BENCH_OUT
 * (bench/RESULTS.md; a quick run writes nothing unless BENCH_OUT is set), BENCH_TOOL (wrk|autocannon),
 * BENCH_SETTLE_S (120; 0 in quick mode: how long to wait for a 1-minute load average under 0.5 first).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { approvalNotification, caseRecord, largestCase } from './fixtures.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const env = process.env;
const QUICK = env.BENCH_QUICK === '1' || process.argv.includes('--quick');
const DURATION_S = Number(env.BENCH_DURATION_S ?? (QUICK ? 2 : 5));
const ROUNDS = Number(env.BENCH_ROUNDS ?? (QUICK ? 1 : 3));
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 32);
const OUT = env.BENCH_OUT ?? (QUICK ? undefined : 'bench/RESULTS.md');
const NPROC = Number(execFileSync('nproc').toString().trim()) || 1;
const TMP = mkdtempSync(join(tmpdir(), 'soar-bench-'));
/** Servers this run started, by PID: stopped on any exit, a crash included, so none is left behind. */
const children = new Set();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(TMP, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

const SERVERS = {
  service: { script: 'dist/app/main.js', label: 'service' },
  minimal: { script: 'bench/minimal-server.mjs', label: 'minimal node:http' },
  hono: { script: 'bench/hono-server.mjs', label: 'plain Hono' },
  bytes: { script: 'bench/minimal-server.mjs', label: 'same bytes, constant' },
  wiremock: { label: 'WireMock' },
};
/** Route key, label, the servers it runs on (the first is the service, the second the baseline). */
const ROUTES = [
  ['health', 'GET /health', ['service', 'minimal', 'hono', 'wiremock']],
  ['identity', 'GET /identity/lab-admin', ['service', 'minimal', 'hono', 'wiremock']],
  ['cases', 'POST /cases', ['service', 'minimal', 'hono', 'wiremock']],
  ['blocklist', 'POST + DELETE /blocklist', ['service', 'minimal']],
  ['state', 'GET /state (caps full)', ['service', 'minimal', 'bytes']],
  ['statebr', 'GET /state, Accept-Encoding: br', ['service']],
  ['state304', 'GET /state, If-None-Match (304)', ['service']],
].filter(([key]) => !env.BENCH_ROUTES || env.BENCH_ROUTES.split(',').includes(key));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (line) => process.stdout.write(`${line}\n`);
const fmt = (n, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
const load1 = () => loadavg()[0];
const median = (xs) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

if (!existsSync(join(ROOT, SERVERS.service.script))) {
  log('bench: dist/ is missing; building it (npm run build)');
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
}

// ---- the load generator -------------------------------------------------------------------------------

function chooseTool() {
  if (env.BENCH_TOOL === 'autocannon') return 'autocannon';
  if (has('wrk')) return 'wrk';
  if (has('apt-get') && process.getuid?.() === 0) {
    log('bench: wrk is missing; installing it from Debian (apt-get install wrk)');
    let r = spawnSync('apt-get', ['install', '-y', '-q', 'wrk'], { stdio: 'inherit' });
    if (r.status !== 0) {
      spawnSync('apt-get', ['update', '-q'], { stdio: 'inherit' });
      r = spawnSync('apt-get', ['install', '-y', '-q', 'wrk'], { stdio: 'inherit' });
    }
    if (r.status === 0 && has('wrk')) return 'wrk';
  }
  log('bench: FALLBACK: wrk is not available; using autocannon (a Node.js load generator, from npm).');
  log('       It needs more CPU per request than wrk, so it can be the bottleneck: read the CPU columns.');
  return 'autocannon';
}
const TOOL = chooseTool();
const PIN = NPROC >= 2 && has('taskset');
const WIREMOCK_VERSION = '3.13.2';
const WIREMOCK_JAR = findWiremock();
if (!WIREMOCK_JAR) for (const route of ROUTES) route[2] = route[2].filter((n) => n !== 'wiremock');

/**
 * WireMock as a second anchor, when Java is here: the `wiremock` npm package bundles its standalone jar,
 * installed once into a cache outside the repository. BENCH_WIREMOCK=0 skips it.
 */
function findWiremock() {
  if (env.BENCH_WIREMOCK === '0') return undefined;
  if (!has('java')) {
    log('bench: WireMock not run: no java on this machine');
    return undefined;
  }
  const cache = join(
    env.XDG_CACHE_HOME ?? join(env.HOME ?? tmpdir(), '.cache'),
    'soar-lab-bench',
    'wiremock',
  );
  const jar = join(cache, 'node_modules', 'wiremock', 'build', `wiremock-standalone-${WIREMOCK_VERSION}.jar`);
  if (!existsSync(jar)) {
    log(`bench: installing the wiremock npm package ${WIREMOCK_VERSION} (its jar) into ${cache}`);
    const r = spawnSync(
      'npm',
      ['install', '--prefix', cache, '--no-audit', '--no-fund', `wiremock@${WIREMOCK_VERSION}`],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    if (r.status !== 0 || !existsSync(jar)) {
      log('bench: WireMock not run: the wiremock npm package could not be installed');
      return undefined;
    }
  }
  return jar;
}

/** WireMock's stubs: the minimal server's answers, as static responses. */
function wiremockRoot() {
  const root = join(TMP, 'wiremock');
  mkdirSync(join(root, 'mappings'), { recursive: true });
  const stub = (name, method, url, status, body) =>
    writeFileSync(
      join(root, 'mappings', `${name}.json`),
      JSON.stringify({
        request: { method, url },
        response: {
          status,
          body: JSON.stringify(body),
          headers: { 'content-type': 'application/json; charset=utf-8' },
        },
      }),
    );
  stub('health', 'GET', '/health', 200, { status: 'ok' });
  stub('identity', 'GET', '/identity/lab-admin', 200, { user: 'lab-admin', role: 'administrator' });
  stub('cases', 'POST', '/cases', 200, caseRecord('evt-bench'));
  stub('reset', 'POST', '/reset', 200, { reset: true });
  return root;
}
const GEN_CORE = '0';
const SERVER_CORE = '1';
const pinned = (core, argv) => (PIN ? ['taskset', '-c', core, ...argv] : argv);

/** The wrk script of a route: how its requests look, and one JSON line of results at the end. */
function wrkScript(route, etag) {
  const json = (v) => JSON.stringify(JSON.stringify(v)); // a Lua string literal of the JSON text
  const done = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('BENCH {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"max_us":%d,"non2xx":%d,"errors":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    e.status, e.connect + e.read + e.write + e.timeout))
end
`;
  const heads = {
    health: 'wrk.path = "/health"',
    identity: 'wrk.path = "/identity/lab-admin"',
    cases: `wrk.method = "POST"
wrk.path = "/cases"
wrk.headers["Content-Type"] = "application/json"
wrk.body = ${json(caseRecord('evt-bench'))}`,
    blocklist: `local post, del
local i = 0
init = function(args)
  post = wrk.format("POST", "/blocklist", {["Content-Type"] = "application/json"}, ${json({ ip: '203.0.113.66', event_id: 'evt-bench', expires_minutes: 10 })})
  del = wrk.format("DELETE", "/blocklist/203.0.113.66", {})
end
request = function()
  i = i + 1
  if i % 2 == 1 then return post end
  return del
end`,
    state: 'wrk.path = "/state"',
    statebr: `wrk.path = "/state"
wrk.headers["Accept-Encoding"] = "br"`,
    state304: `wrk.path = "/state"
wrk.headers["If-None-Match"] = ${JSON.stringify(etag ?? '')}`,
  };
  const file = join(TMP, `${route}.lua`);
  writeFileSync(file, `${heads[route]}\n${done}`);
  return file;
}

/** One load run against a port; resolves to requests, req/s, latency, errors and the generator's CPU. */
function runLoad(port, route, seconds, etag) {
  if (TOOL === 'autocannon') return runAutocannon(port, route, seconds, etag);
  const script = wrkScript(route, etag);
  const wrk = pinned(GEN_CORE, [
    'wrk',
    '-t1',
    `-c${CONNECTIONS}`,
    `-d${seconds}s`,
    '--timeout',
    '10s',
    '-s',
    script,
    `http://127.0.0.1:${port}`,
  ]);
  // `times` prints the CPU its children used: the generator's own CPU, to tell whether it was the limit.
  const shell = `${wrk.map((a) => `'${a}'`).join(' ')}; times`;
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', shell], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.on('exit', (code) => {
      const line = /^BENCH (.*)$/m.exec(out)?.[1];
      if (code !== 0 || !line) return reject(new Error(`wrk failed (${code}):\n${out}`));
      const r = JSON.parse(line);
      const times =
        out
          .trim()
          .split('\n')
          .at(-1)
          ?.match(/(\d+)m([\d.]+)s/g) ?? [];
      const genS = times.reduce((s, t) => {
        const [, m, sec] = /(\d+)m([\d.]+)s/.exec(t) ?? [];
        return s + Number(m) * 60 + Number(sec);
      }, 0);
      const seconds = r.duration_us / 1e6;
      resolve({
        requests: r.requests,
        seconds,
        rps: r.requests / seconds,
        p50: r.p50_us / 1000,
        p99: r.p99_us / 1000,
        max: r.max_us / 1000,
        non2xx: r.non2xx,
        errors: r.errors,
        genCpu: genS / seconds,
      });
    });
  });
}

function runAutocannon(port, route, seconds, etag) {
  const body = {
    cases: { method: 'POST', path: '/cases', body: caseRecord('evt-bench') },
    health: { path: '/health' },
    identity: { path: '/identity/lab-admin' },
    state: { path: '/state' },
    statebr: { path: '/state', headers: { 'accept-encoding': 'br' } },
    state304: { path: '/state', headers: { 'if-none-match': etag ?? '' } },
    blocklist: {
      method: 'POST',
      path: '/blocklist',
      body: { ip: '203.0.113.66', event_id: 'e', expires_minutes: 10 },
    },
  }[route];
  const args = ['--yes', 'autocannon@8', '-j', '-c', String(CONNECTIONS), '-d', String(seconds)];
  if (body.method)
    args.push('-m', body.method, '-H', 'content-type=application/json', '-b', JSON.stringify(body.body));
  for (const [k, v] of Object.entries(body.headers ?? {})) args.push('-H', `${k}=${v}`);
  args.push(`http://127.0.0.1:${port}${body.path}`);
  const r = spawnSync(pinned(GEN_CORE, ['npx'])[0], [...pinned(GEN_CORE, ['npx']).slice(1), ...args], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const j = JSON.parse(r.stdout);
  return Promise.resolve({
    requests: j.requests.total,
    seconds: j.duration,
    rps: j.requests.total / j.duration,
    p50: j.latency.p50,
    p99: j.latency.p99,
    max: j.latency.max,
    non2xx: j.non2xx,
    errors: j.errors,
    genCpu: Number.NaN,
  });
}

// ---- servers ------------------------------------------------------------------------------------------

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Starts a server pinned to the server core, its stdout to a log file (as in a container). */
async function startServer(name, timeoutMs = name === 'wiremock' ? 90_000 : 15_000) {
  const port = await freePort();
  const logFile = join(TMP, `${name}-${port}.log`);
  const command =
    name === 'wiremock'
      ? // Its request journal capped like the service's (1,000 entries); the banner off.
        [
          'java',
          '-jar',
          WIREMOCK_JAR,
          '--port',
          String(port),
          '--bind-address',
          '127.0.0.1',
          '--root-dir',
          wiremockRoot(),
          '--max-request-journal-entries',
          '1000',
          '--disable-banner',
        ]
      : [process.execPath, SERVERS[name].script];
  const argv = pinned(SERVER_CORE, command);
  const started = performance.now();
  const child = spawn(argv[0], argv.slice(1), {
    cwd: ROOT,
    env: { PATH: env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', openSync(logFile, 'w'), 'inherit'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  while (performance.now() - started < timeoutMs) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      await res.arrayBuffer();
      if (res.status === 200)
        return { name, child, port, url: `http://127.0.0.1:${port}`, coldMs: performance.now() - started };
    } catch {}
    await sleep(2);
  }
  child.kill('SIGKILL');
  throw new Error(`${name} did not answer /health within ${timeoutMs} ms`);
}

function stopServer(server) {
  return new Promise((resolve) => {
    if (server.child.exitCode !== null) return resolve();
    server.child.once('exit', () => resolve());
    server.child.kill('SIGTERM');
    setTimeout(() => server.child.kill('SIGKILL'), 3000).unref();
  });
}

const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
/** CPU time (user + system) a process has used, in seconds. */
const cpuS = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(f[11]) + Number(f[12])) / CLK_TCK;
};
const rssMb = (pid) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function call(url, method, path, body) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res;
}

/** Fills both caps (1,000 cases, 1,000 notifications), 16 requests at a time. */
async function fillCaps(server, makeCase) {
  const jobs = [];
  for (let i = 0; i < 1000; i++) {
    jobs.push(() => call(server.url, 'POST', '/cases', makeCase(`evt-${i}`)));
    jobs.push(() => call(server.url, 'POST', '/notify', approvalNotification(`evt-${i}`, i)));
  }
  while (jobs.length) await Promise.all(jobs.splice(0, 16).map((job) => job()));
}

/** The same starting state on every server before a run. */
async function prepare(server, route) {
  if (server.name === 'bytes') {
    // The service is prepared first (it leads every route's list): its answer's length is known.
    await call(server.url, 'POST', '/state-bytes', { bytes: stateBytes });
    return { bytes: stateBytes };
  }
  await call(server.url, 'POST', '/reset', {});
  if (route.startsWith('state')) {
    await fillCaps(server, caseRecord);
    const res = await call(server.url, 'GET', '/state');
    return { etag: res.headers.get('etag') ?? undefined, bytes: Number(res.headers.get('content-length')) };
  }
  return {};
}

// ---- the run ------------------------------------------------------------------------------------------

// A build or a test suite that just ended leaves the 1-minute load average high for a minute or two; the
// figures are steadier if the run starts on a settled machine. Waits at most BENCH_SETTLE_S (120) seconds.
const SETTLE_S = Number(env.BENCH_SETTLE_S ?? (QUICK ? 0 : 120));
for (let waited = 0; load1() > 0.5 && waited < SETTLE_S; waited += 10) {
  log(
    `bench: waiting for the machine to settle (1-minute load average ${fmt(load1(), 2)} > 0.5), ${waited} s`,
  );
  await sleep(10_000);
}

const machine = {
  date: new Date().toISOString(),
  nproc: NPROC,
  cpu: cpus()[0]?.model ?? 'unknown',
  node: process.version,
  kernel: release(),
  memGb: (totalmem() / 2 ** 30).toFixed(1),
  loadBefore: loadavg()
    .map((l) => l.toFixed(2))
    .join(' '),
};
log(`bench: ${NPROC} cores (${machine.cpu}), node ${machine.node}, load average ${machine.loadBefore}`);
log(
  `bench: ${TOOL}${PIN ? `, generator pinned to core ${GEN_CORE}, servers to core ${SERVER_CORE}` : ', not pinned (one core or no taskset)'}; ` +
    `${ROUTES.length} routes x ${ROUNDS} rounds, 1 s warm-up + ${DURATION_S} s, ${CONNECTIONS} connections${QUICK ? ' (quick mode)' : ''}`,
);

const results = [];
let stateBytes = 0;
for (const [key, label, names] of ROUTES) {
  const runs = Object.fromEntries(names.map((n) => [n, []]));
  const servers = {};
  try {
    for (const n of names) servers[n] = await startServer(n);
    const prepared = {};
    // The Node servers alternate round by round. WireMock's rounds come after theirs: a JVM leaves the
    // server's core busier for a while after it stops (its heap handed back to the kernel), which made
    // the next Node server's run in an interleaved order measurably slower.
    const node = names.filter((n) => n !== 'wiremock');
    const order = [
      ...Array.from({ length: ROUNDS }, (_, round) => node.map((n) => [round, n])).flat(),
      ...(names.includes('wiremock')
        ? Array.from({ length: ROUNDS }, (_, round) => [round, 'wiremock'])
        : []),
    ];
    for (const [round, n] of order) {
      const server = servers[n];
      // /state is read-only: filled once; the writing routes start from a reset every run.
      if (!(key.startsWith('state') && prepared[n])) prepared[n] = await prepare(server, key);
      if (key === 'state' && n === 'service') stateBytes = prepared[n].bytes;
      // Warm-up: 1 s; WireMock's JVM needs longer to compile its hot path.
      await runLoad(server.port, key, n === 'wiremock' ? (QUICK ? 3 : 8) : 1, prepared[n].etag);
      const loadBefore = load1();
      const cpu0 = cpuS(server.child.pid);
      const r = await runLoad(server.port, key, DURATION_S, prepared[n].etag);
      r.serverCpu = (cpuS(server.child.pid) - cpu0) / r.seconds;
      r.cpuUs = ((cpuS(server.child.pid) - cpu0) * 1e6) / r.requests;
      r.loadBefore = loadBefore;
      r.loadAfter = load1();
      runs[n].push(r);
      log(
        `  ${label.padEnd(32)} ${SERVERS[n].label.padEnd(17)} round ${round + 1}: ${fmt(r.rps).padStart(6)} req/s` +
          `  p50 ${fmt(r.p50, 2)} p99 ${fmt(r.p99, 2)} ms  server CPU ${fmt(r.serverCpu * 100)}% (${fmt(r.cpuUs, 1)} µs/req)` +
          `  generator CPU ${fmt(r.genCpu * 100)}%  non-2xx ${r.non2xx}${r.errors ? ` errors ${r.errors}` : ''}` +
          `  load ${fmt(r.loadBefore, 2)} -> ${fmt(r.loadAfter, 2)}`,
      );
    }
  } finally {
    for (const s of Object.values(servers)) await stopServer(s);
  }
  const summary = (list) => ({
    rps: median(list.map((r) => r.rps)),
    p50: median(list.map((r) => r.p50)),
    p99: median(list.map((r) => r.p99)),
    p99max: Math.max(...list.map((r) => r.p99)),
    cpuUs: median(list.map((r) => r.cpuUs)),
    serverCpu: median(list.map((r) => r.serverCpu)),
    genCpu: median(list.map((r) => r.genCpu)),
    non2xx: list.reduce((s, r) => s + r.non2xx, 0),
    errors: list.reduce((s, r) => s + r.errors, 0),
  });
  const row = { key, label, names, runs, s: Object.fromEntries(names.map((n) => [n, summary(runs[n])])) };
  if (names.includes('minimal')) {
    row.ratio = row.s.service.rps / row.s.minimal.rps;
    row.cpuRatio = row.s.minimal.cpuUs / row.s.service.cpuUs;
    row.anchors = names
      .filter((n) => n !== 'service' && n !== 'minimal')
      .map((n) => ({
        n,
        ratio: row.s[n].rps / row.s.minimal.rps,
        cpuRatio: row.s.minimal.cpuUs / row.s[n].cpuUs,
      }));
  }
  if (names.includes('bytes')) row.bytesRatio = row.s.service.rps / row.s.bytes.rps;
  results.push(row);
}

// ---- start-up and memory --------------------------------------------------------------------------------

const coldTimes = [];
for (let i = 0; i < (QUICK ? 3 : 7); i++) {
  const s = await startServer('service');
  coldTimes.push(s.coldMs);
  await stopServer(s);
}
const coldMinimal = [];
for (let i = 0; i < 3; i++) {
  const s = await startServer('minimal');
  coldMinimal.push(s.coldMs);
  await stopServer(s);
}
const cold = median(coldTimes);
log(
  `cold start, spawn to first 200 from /health: service median ${fmt(cold)} ms (${coldTimes.map((t) => fmt(t)).join(', ')}); minimal node:http ${fmt(median(coldMinimal))} ms`,
);

/** RSS idle, after filling both caps, and after one GET /state (its cache built). */
async function memory(makeCase) {
  const s = await startServer('service');
  await sleep(500);
  const idle = rssMb(s.child.pid);
  await fillCaps(s, makeCase);
  const health = await (await fetch(`${s.url}/health`)).json();
  const full = rssMb(s.child.pid);
  const res = await call(s.url, 'GET', '/state');
  const bytes = Number(res.headers.get('content-length'));
  await sleep(200);
  const afterState = rssMb(s.child.pid);
  await stopServer(s);
  return { idle, full, afterState, bytes, counts: health.counts };
}
const mem = await memory(caseRecord);
const memMax = await memory(largestCase);
log(
  `RSS: idle ${fmt(mem.idle, 1)} MB; caps full of workflow records ${fmt(mem.full, 1)} MB, after a GET /state of ${fmt(mem.bytes / 1e6, 2)} MB ${fmt(mem.afterState, 1)} MB`,
);
log(
  `RSS worst case (1,000 cases at the 64 KiB limit + 1,000 notifications): ${fmt(memMax.full, 1)} MB, after a GET /state of ${fmt(memMax.bytes / 1e6, 1)} MB ${fmt(memMax.afterState, 1)} MB`,
);
machine.loadAfter = loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');

// ---- verdicts and the report ----------------------------------------------------------------------------

const row = (k) => results.find((r) => r.key === k);
const x = (v) => `${fmt(v, 2)}x`;
const ms = (v) => `${fmt(v, 2)} ms`;
const targets = [
  ['GET /health ≥ 0.60x the minimal server (req/s)', row('health')?.ratio, (v) => v >= 0.6, x],
  ['POST /cases ≥ 0.55x the minimal server (req/s)', row('cases')?.ratio, (v) => v >= 0.55, x],
  ['GET /health ≥ 0.60x the minimal server (CPU per request)', row('health')?.cpuRatio, (v) => v >= 0.6, x],
  ['POST /cases ≥ 0.55x the minimal server (CPU per request)', row('cases')?.cpuRatio, (v) => v >= 0.55, x],
  ...results
    .filter((r) => !r.key.startsWith('state'))
    .map((r) => [
      `p99 < 5 ms at ${CONNECTIONS} connections: ${r.label}` +
        (r.s.minimal ? ` (the minimal server in the same rounds: ${ms(r.s.minimal.p99)})` : ''),
      r.s.service.p99,
      (v) => v < 5,
      ms,
    ]),
  [
    `GET /state (caps full) p99 < 50 ms at ${CONNECTIONS} connections` +
      (row('state')?.s.bytes
        ? ` (the same bytes from a constant buffer: ${ms(row('state').s.bytes.p99)})`
        : ''),
    row('state')?.s.service.p99,
    (v) => v < 50,
    ms,
  ],
  ['cold start to the first /health < 200 ms (median)', cold, (v) => v < 200, (v) => `${fmt(v)} ms`],
  [
    'RSS < 100 MB with both caps full of workflow-sized records',
    mem.afterState,
    (v) => v < 100,
    (v) => `${fmt(v, 1)} MB`,
  ],
].filter(([, v]) => v !== undefined);

log('');
log(
  'route                            server             req/s   p50 ms  p99 ms  server CPU  µs CPU/req  generator CPU',
);
for (const r of results) {
  for (const n of r.names) {
    const s = r.s[n];
    log(
      `${r.label.padEnd(32)} ${SERVERS[n].label.padEnd(17)} ${fmt(s.rps).padStart(6)} ${fmt(s.p50, 2).padStart(8)} ${fmt(s.p99, 2).padStart(7)} ${`${fmt(s.serverCpu * 100)}%`.padStart(11)} ${fmt(s.cpuUs, 1).padStart(11)} ${`${fmt(s.genCpu * 100)}%`.padStart(14)}`,
    );
  }
  if (r.ratio !== undefined) {
    log(`${''.padEnd(32)} service / minimal: ${x(r.ratio)} by req/s, ${x(r.cpuRatio)} by CPU per request`);
    for (const a of r.anchors)
      log(
        `${''.padEnd(32)} ${SERVERS[a.n].label} / minimal: ${x(a.ratio)} by req/s, ${x(a.cpuRatio)} by CPU per request`,
      );
  }
  if (r.bytesRatio !== undefined)
    log(`${''.padEnd(32)} service / the same bytes from a constant buffer: ${x(r.bytesRatio)} by req/s`);
}
log('');
for (const [name, v, ok, show] of targets) log(`${ok(v) ? 'met   ' : 'MISSED'}  ${name}: ${show(v)}`);

const loads = results.flatMap((r) =>
  r.names.flatMap((n) => r.runs[n].flatMap((x) => [x.loadBefore, x.loadAfter])),
);
const serverCpus = results.flatMap((r) => r.names.flatMap((n) => r.runs[n].map((x) => x.serverCpu)));
const genCpus = results.flatMap((r) => r.names.flatMap((n) => r.runs[n].map((x) => x.genCpu)));
const range = (xs, f) => `${f(Math.min(...xs))} to ${f(Math.max(...xs))}`;
const pct = (v) => `${fmt(v * 100)}%`;

/**
 * How to read the figures. The run itself keeps two cores busy (the server and wrk), so a 1-minute load
 * average near 2 during the runs is its own and says nothing of other work; what tells is the load
 * before the run, and whether the server's core was saturated in each run (then the server was the
 * limit) or the generator's was (then the figure is a lower bound for the server).
 */
function readFirst() {
  const before = Number(machine.loadBefore.split(' ')[0]);
  const all = results.flatMap((r) => r.names.flatMap((n) => r.runs[n].map((run) => ({ r, n, run }))));
  const genBound = all.filter(({ run }) => run.genCpu >= 0.9);
  const unsaturated = all.filter(({ run }) => run.genCpu < 0.9 && run.serverCpu < 0.9);
  const out = [
    `The machine's 1-minute load average before the run was ${fmt(before, 2)} on ${machine.nproc} cores${before > 0.5 ? ' (other work was running: figures are noisier than on a quiet machine)' : ''}. During the runs the bench itself keeps two cores busy (the server and wrk), so the load average near 2 in the tables below is its own.`,
  ];
  out.push(
    unsaturated.length === 0
      ? 'In every run one of the two was saturated: the server (the figure is the server’s) or, where the generator column reads 90% or more, wrk (the figure is then a lower bound for the server).'
      : `In ${unsaturated.length} run(s) neither the server's core nor wrk's reached 90%: something else took the CPU there (${unsaturated.map(({ r, n }) => `${r.label}, ${SERVERS[n].label}`).join('; ')}).`,
  );
  if (genBound.length)
    out.push(
      `wrk was the limit (90% or more of its core) in: ${[...new Set(genBound.map(({ r, n }) => `${r.label}, ${SERVERS[n].label}`))].join('; ')}. Those servers answered as fast as wrk could read; their figures are lower bounds.`,
    );
  out.push(
    'Alternating the servers run by run spreads drift over all of them; the CPU time each server spent per request is the steadier figure, so the ratios are given both ways.',
  );
  return out.join(' ');
}

const md = `# Benchmark results

Generated by \`npm run bench\` (bench/run.mjs) on ${machine.date}${QUICK ? ' in quick mode (1 round of 2 s: a smoke run, not figures to quote)' : ''}.
Method and reading: docs/hardening.md, "Benchmark".

## Machine and load

| | |
|---|---|
| cores (\`nproc\`) | ${machine.nproc} |
| CPU | ${machine.cpu} |
| memory | ${machine.memGb} GiB |
| Node.js | ${machine.node} |
| kernel | ${machine.kernel} |
| load generator | ${TOOL === 'wrk' ? 'wrk (C), 1 thread' : '**autocannon (fallback: wrk was not available)**'}, ${CONNECTIONS} keep-alive connections |
| pinning | ${PIN ? `generator on core ${GEN_CORE}, server on core ${SERVER_CORE} (taskset)` : 'none (fewer than two cores, or no taskset)'} |
| load average (1, 5, 15 min) before / after the whole run | ${machine.loadBefore} / ${machine.loadAfter} |
| 1-minute load average around the runs | ${range(loads, (v) => fmt(v, 2))} |
| server CPU during the runs (one core = 100%) | ${range(serverCpus, pct)} |
| generator CPU during the runs | ${range(genCpus, pct)} |

**Read this first.** ${readFirst()}

## Throughput and latency (1 s warm-up + ${DURATION_S} s per run, ${ROUNDS} round${ROUNDS > 1 ? 's' : ''}, servers alternating; medians)

The baseline is the **minimal node:http server** (bench/minimal-server.mjs): no framework, no validation,
no journal, no log; the most a Node process can do here. Plain Hono on @hono/node-server
(bench/hono-server.mjs) is an anchor measured in the same run${WIREMOCK_JAR ? `, and so is WireMock ${WIREMOCK_VERSION} (the standalone jar from the \`wiremock\` npm package, on Java; static stubs answering like the minimal server, its request journal capped at 1,000)` : '; WireMock was not run (no Java, or its npm package could not be installed)'}.

| route | server | req/s | p50 ms | p99 ms | server CPU | CPU µs / request | generator CPU | non-2xx |
|---|---|---:|---:|---:|---:|---:|---:|---:|
${results
  .flatMap((r) =>
    r.names.map((n) => {
      const s = r.s[n];
      return `| ${r.label} | ${SERVERS[n].label} | ${fmt(s.rps)} | ${fmt(s.p50, 2)} | ${fmt(s.p99, 2)} | ${pct(s.serverCpu)} | ${fmt(s.cpuUs, 1)} | ${pct(s.genCpu)} | ${s.non2xx} |`;
    }),
  )
  .join('\n')}

| route | server | / minimal, by req/s | by CPU per request |
|---|---|---:|---:|
${results
  .filter((r) => r.ratio !== undefined)
  .flatMap((r) => [
    `| ${r.label} | **service** | **${x(r.ratio)}** | ${x(r.cpuRatio)} |`,
    ...r.anchors.map((a) => `| ${r.label} | ${SERVERS[a.n].label} | ${x(a.ratio)} | ${x(a.cpuRatio)} |`),
  ])
  .join('\n')}
${
  row('state')?.bytesRatio !== undefined
    ? `\nFor GET /state the physical limit is not the minimal server (it serialises its state per request) but the same number of bytes written from one constant buffer (\`same bytes, constant\`): the service reaches **${x(row('state').bytesRatio)}** of its req/s.\n`
    : ''
}

Every run (the Node servers alternated round by round; WireMock's rounds came after theirs; load average before → after):

| route | server | round | req/s | p99 ms | server CPU | generator CPU | load |
|---|---|---:|---:|---:|---:|---:|---|
${results
  .flatMap((r) =>
    Array.from({ length: ROUNDS }, (_, i) =>
      r.names.map((n) => {
        const x = r.runs[n][i];
        return x
          ? `| ${r.label} | ${SERVERS[n].label} | ${i + 1} | ${fmt(x.rps)} | ${fmt(x.p99, 2)} | ${pct(x.serverCpu)} | ${pct(x.genCpu)} | ${fmt(x.loadBefore, 2)} → ${fmt(x.loadAfter, 2)} |`
          : '';
      }),
    ).flat(),
  )
  .filter(Boolean)
  .join('\n')}

Notes:
- GET /state answers ${fmt(stateBytes / 1e6, 2)} MB here: 1,000 cases as the reference workflow writes them, 1,000
  approval notifications with their resume URLs, a full journal. The service serves it from a cache per
  state version, written from its cached parts without joining them; the minimal server serialises its
  (smaller: no journal) state on every request; \`same bytes, constant\` (the minimal server after
  \`POST /state-bytes\`) writes as many bytes from one constant buffer.
- GET /state with \`Accept-Encoding: br\`: the service compresses the state once per state version and
  splices each answer's \`now\` on uncompressed (docs/hardening.md). Nothing changes the state during
  the run, so the figure is a read between changes; the first br read after a change also compresses
  the whole head once.
- POST + DELETE /blocklist: ${CONNECTIONS} connections contend for the one blockable address, so 409 and 404
  are part of the mix (the non-2xx column) on both servers.

## What sets p99 at saturation

Each of the ${CONNECTIONS} connections sends its next request as soon as the last is answered, so the server
is always saturated and, by Little's law, the mean latency is ${CONNECTIONS} / req/s: a slower server has a
higher p50 whatever its tail. What is a server's own is its tail above its median (p99 − p50). The last
column is the throughput a server with the minimal server's tail above the median would need for
p99 < 5 ms: ${CONNECTIONS} / (5 ms − that tail), as a fraction of the minimal server's req/s.

| route | ${CONNECTIONS} / req/s, service | p50, service | p99 − p50, service | p99 − p50, minimal | req/s needed for p99 < 5 ms |
|---|---:|---:|---:|---:|---:|
${results
  .filter((r) => !r.key.startsWith('state') && r.s.minimal)
  .map((r) => {
    const sv = r.s.service;
    const mn = r.s.minimal;
    const tail = mn.p99 - mn.p50;
    const needed = tail < 5 ? (CONNECTIONS * 1000) / (5 - tail) : Number.NaN;
    return `| ${r.label} | ${ms((CONNECTIONS * 1000) / sv.rps)} | ${ms(sv.p50)} | ${ms(sv.p99 - sv.p50)} | ${ms(tail)} | ${Number.isFinite(needed) ? `${fmt(needed)} (${x(needed / mn.rps)} the minimal server)` : 'none: the tail alone is 5 ms or more'} |`;
  })
  .join('\n')}

## Start-up and memory

| | |
|---|---:|
| cold start, spawn to the first 200 from /health (median of ${coldTimes.length}) | ${fmt(cold)} ms (${coldTimes.map((t) => fmt(t)).join(', ')}) |
| the same for the minimal node:http server (median of 3) | ${fmt(median(coldMinimal))} ms |
| RSS idle | ${fmt(mem.idle, 1)} MB |
| RSS, both caps full of workflow-sized records (1,000 cases, 1,000 approval notifications) | ${fmt(mem.full, 1)} MB |
| … and after one GET /state (${fmt(mem.bytes / 1e6, 2)} MB, its cache built) | ${fmt(mem.afterState, 1)} MB |
| worst case: 1,000 cases at the 64 KiB limit + 1,000 notifications | ${fmt(memMax.full, 1)} MB |
| … and after one GET /state (${fmt(memMax.bytes / 1e6, 1)} MB) | ${fmt(memMax.afterState, 1)} MB |

## Targets (issue 13)

| target | figure | |
|---|---|---|
${targets.map(([name, v, ok, show]) => `| ${name} | ${show(v)} | ${ok(v) ? 'met' : '**missed**'} |`).join('\n')}
`;
if (OUT) {
  writeFileSync(OUT.startsWith('/') ? OUT : join(ROOT, OUT), md);
  log(`\nwrote ${OUT}`);
}
