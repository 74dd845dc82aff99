/**
 * `npm run bench`: the built service (dist/app/api/main.js, whole pipeline on: validation, journal, access
 * checks, one JSON log line per request written to a file as in a container) against the physical limit,
 * a minimal node:http server (bench/minimal-server.ts), with plain Hono on @hono/node-server
 * (bench/hono-server.ts) and WireMock as anchors. Two kinds of load, the generator pinned to one core
 * and the server to the other (bench/load.ts): throughput with wrk's closed loop, and latency at fixed
 * offered rates with `hey -q`. Rounds alternate the servers (A B C A B C ...); every figure is reported
 * as its range over the rounds. Also: cold start to the first /health, RSS idle and with both caps full.
 * Writes bench/RESULTS.md (bench/report.ts). Settings: bench/settings.ts.
 */
import { cpus, loadavg, release, totalmem } from 'node:os';
import { caseRecord, largestCase } from './fixtures.js';
import { countInstructions, type InstructionRow, valgrindReady } from './instructions.js';
import {
  chooseTool,
  HEY,
  type LoadResult,
  type RateResult,
  type RouteKey,
  runFixedRate,
  runLoad,
} from './load.js';
import { printSummary, writeReport } from './report.js';
import {
  call,
  cpuS,
  fillCaps,
  LABELS,
  PIN,
  rssMb,
  type Server,
  type ServerName,
  startServer,
  stopServer,
  WIREMOCK_JAR,
} from './servers.js';
import {
  CONNECTIONS,
  DURATION_S,
  fmt,
  INSTRUCTIONS_WANTED,
  load1,
  log,
  median,
  NPROC,
  QUICK,
  RATE_S,
  RATE_SHAPES,
  RATE_WORKERS,
  RATES,
  ROUNDS,
  ROUTE_FILTER,
  SETTLE_S,
  sleep,
} from './settings.js';
import { type Machine, RATE_RUNS, type RateRow, type RateRun, type Row, type Run } from './verdicts.js';

const TOOL = chooseTool();

/** Route key, label, the servers it runs on (the first is the service, the second the baseline). */
const ROUTES: [RouteKey, string, ServerName[]][] = (
  [
    ['health', 'GET /health', ['service', 'minimal', 'hono', 'wiremock']],
    ['identity', 'GET /identity/lab-admin', ['service', 'minimal', 'hono', 'wiremock']],
    ['cases', 'POST /cases', ['service', 'minimal', 'hono', 'wiremock']],
    ['notify', 'POST /notify', ['service', 'minimal']],
    ['blocklist', 'POST + DELETE /blocklist', ['service', 'minimal']],
    ['state', 'GET /state (caps full)', ['service', 'minimal', 'bytes']],
    ['statebr', 'GET /state, Accept-Encoding: br', ['service']],
    ['state304', 'GET /state, If-None-Match (304)', ['service']],
  ] satisfies [RouteKey, string, ServerName[]][]
)
  .filter(([key]) => !ROUTE_FILTER || ROUTE_FILTER.includes(key))
  .map(([key, label, names]) => [key, label, WIREMOCK_JAR ? names : names.filter((n) => n !== 'wiremock')]);

// A build or a test suite that just ended leaves the 1-minute load average high for a minute or two; the
// figures are steadier if the run starts on a settled machine. Waits at most BENCH_SETTLE_S seconds.
for (let waited = 0; load1() > 0.5 && waited < SETTLE_S; waited += 10) {
  log(
    `bench: waiting for the machine to settle (1-minute load average ${fmt(load1(), 2)} > 0.5), ${waited} s`,
  );
  await sleep(10_000);
}

const loads = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const machine: Machine = {
  date: new Date().toISOString(),
  nproc: NPROC,
  cpu: cpus()[0]?.model ?? 'unknown',
  node: process.version,
  kernel: release(),
  memGb: (totalmem() / 2 ** 30).toFixed(1),
  loadBefore: loads(),
  loadAfter: '',
  tool: TOOL,
  pinned: PIN,
};
log(`bench: ${NPROC} cores (${machine.cpu}), node ${machine.node}, load average ${machine.loadBefore}`);
log(
  `bench: ${TOOL}${PIN ? ', generator pinned to core 0, servers to core 1' : ', not pinned (one core or no taskset)'}; ` +
    `${ROUTES.length} routes x ${ROUNDS} rounds, 1 s warm-up + ${DURATION_S} s, ${CONNECTIONS} connections${QUICK ? ' (quick mode)' : ''}`,
);

let stateBytes = 0;

/** The same starting state on every server before a run. */
async function prepare(server: Server, route: RouteKey): Promise<{ etag?: string; bytes?: number }> {
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

const line = (label: string, n: ServerName, round: number, r: LoadResult & Partial<Run>, extra = '') =>
  log(
    `  ${label.padEnd(32)} ${LABELS[n].padEnd(17)} round ${round + 1}: ${fmt(r.rps).padStart(6)} req/s` +
      `  p50 ${fmt(r.p50, 2)} p99 ${fmt(r.p99, 2)} max ${fmt(r.max, 1)} ms${r.serverCpu !== undefined ? `  server CPU ${fmt(r.serverCpu * 100)}% (${fmt(r.cpuUs, 1)} µs/req)` : ''}` +
      `  generator CPU ${fmt(r.genCpu * 100)}%  non-2xx ${r.non2xx}${r.errors ? ` errors ${r.errors}` : ''}${extra}` +
      `  load ${fmt(r.loadBefore, 2)} -> ${fmt(r.loadAfter, 2)}`,
  );

/** Runs `measure` once with the server's CPU and the load average around it. */
async function measured<T extends LoadResult>(server: Server, measure: () => Promise<T>): Promise<T & Run> {
  const loadBefore = load1();
  const cpu0 = cpuS(server.pid);
  const r = await measure();
  const used = cpuS(server.pid) - cpu0;
  return {
    ...r,
    serverCpu: used / r.seconds,
    cpuUs: (used * 1e6) / r.requests,
    loadBefore,
    loadAfter: load1(),
  };
}

// ---- throughput: wrk's closed loop ----------------------------------------------------------------------

const rows: Row[] = [];
for (const [key, label, names] of ROUTES) {
  const runs = Object.fromEntries(names.map((n) => [n, [] as Run[]])) as Record<ServerName, Run[]>;
  const servers: Partial<Record<ServerName, Server>> = {};
  try {
    for (const n of names) servers[n] = await startServer(n);
    const prepared: Partial<Record<ServerName, { etag?: string; bytes?: number }>> = {};
    // The Node servers alternate round by round. WireMock's rounds come after theirs: a JVM leaves the
    // server's core busier for a while after it stops (its heap handed back to the kernel), which made
    // the next Node server's run in an interleaved order measurably slower.
    const node = names.filter((n) => n !== 'wiremock');
    const order: [number, ServerName][] = [
      ...Array.from({ length: ROUNDS }, (_, round) =>
        node.map((n): [number, ServerName] => [round, n]),
      ).flat(),
      ...(names.includes('wiremock')
        ? Array.from({ length: ROUNDS }, (_, round): [number, ServerName] => [round, 'wiremock'])
        : []),
    ];
    for (const [round, n] of order) {
      const server = servers[n];
      if (!server) continue;
      // /state is read-only: filled once; the writing routes start from a reset every run.
      let ready = prepared[n];
      if (!(key.startsWith('state') && ready)) ready = prepared[n] = await prepare(server, key);
      if (key === 'state' && n === 'service') stateBytes = ready.bytes ?? 0;
      // Warm-up: 1 s; WireMock's JVM needs longer to compile its hot path.
      await runLoad(TOOL, server.port, key, n === 'wiremock' ? (QUICK ? 3 : 8) : 1, ready.etag);
      const r = await measured(server, () => runLoad(TOOL, server.port, key, DURATION_S, ready.etag));
      runs[n].push(r);
      line(label, n, round, r);
    }
  } finally {
    for (const s of Object.values(servers)) await stopServer(s);
  }
  rows.push({ key, label, names, runs });
}

// ---- latency at fixed offered rates: hey -q -------------------------------------------------------------

const rateRows: RateRow[] = [];
/** The closed-loop warm-up of each server before its fixed-rate runs, and the pause after it. */
const RATE_WARM_S = QUICK ? 1 : 3;
const RATE_SETTLE_MS = 2000;
/**
 * Each run's warm-up at its own rate: after a change of load (a closed loop, another rate) a server's CPU
 * per request takes some seconds to come down, the minimal server's as well as the service's.
 */
const RATE_RUN_WARM_S = QUICK ? 1 : 5;
if (HEY) {
  log(
    `bench: fixed rates ${RATES.join(', ')} req/s (hey, ${RATE_WORKERS} workers; ${RATE_SHAPES.join(', ')}), ${RATE_S} s per run`,
  );
  for (const [route, label] of [
    ['cases', 'POST /cases'],
    ['health', 'GET /health'],
  ] as const) {
    if (ROUTE_FILTER && !ROUTE_FILTER.includes(route)) continue;
    const servers = { service: await startServer('service'), minimal: await startServer('minimal') };
    try {
      // Steady state first, as in a lab that has run a while: a closed-loop run each (the JIT has
      // optimised the route, the heap has grown), then a pause for the compiler's and GC's threads to finish.
      for (const server of Object.values(servers)) await runLoad(TOOL, server.port, route, RATE_WARM_S);
      await sleep(RATE_SETTLE_MS);
      for (const rate of RATES)
        for (const shape of RATE_SHAPES) {
          const runs: Record<RateRun, (RateResult & Run)[]> = { service: [], minimal: [], control: [] };
          for (let round = 0; round < ROUNDS; round++) {
            // The order turns each round (service first, then minimal first, ...): no server always runs
            // first after the rate or shape has changed.
            for (const n of RATE_RUNS.map((_, i) => RATE_RUNS[(i + round) % RATE_RUNS.length] as RateRun)) {
              const server = n === 'service' ? servers.service : servers.minimal;
              await call(server.url, 'POST', '/reset', {});
              await runFixedRate(server.port, route, rate, RATE_RUN_WARM_S, shape);
              const r = await measured(server, () => runFixedRate(server.port, route, rate, RATE_S, shape));
              runs[n].push(r);
              line(
                `${label} at ${rate}/s, ${shape}`,
                server.name,
                round,
                r,
                `  offered ${rate}/s${n === 'control' ? ' (control)' : ''}`,
              );
            }
          }
          rateRows.push({ route, label, rate, shape, runs });
        }
    } finally {
      await stopServer(servers.service);
      await stopServer(servers.minimal);
    }
  }
}

// ---- instructions per request: callgrind -----------------------------------------------------------------

let instructionRows: InstructionRow[] = [];
const valgrind = INSTRUCTIONS_WANTED && valgrindReady();
if (valgrind) {
  log('bench: instructions per request under callgrind (valgrind)');
  instructionRows = await countInstructions(
    (
      [
        ['cases', 'POST /cases'],
        ['health', 'GET /health'],
      ] as const
    ).filter(([route]) => !ROUTE_FILTER || ROUTE_FILTER.includes(route)),
    ['service', 'minimal', 'hono'],
  );
} else if (INSTRUCTIONS_WANTED) log('bench: instruction counts not taken: valgrind is not available');

// ---- start-up and memory --------------------------------------------------------------------------------

const coldTimes: number[] = [];
for (let i = 0; i < (QUICK ? 3 : 7); i++) {
  const s = await startServer('service');
  coldTimes.push(s.coldMs);
  await stopServer(s);
}
const coldMinimal: number[] = [];
for (let i = 0; i < 3; i++) {
  const s = await startServer('minimal');
  coldMinimal.push(s.coldMs);
  await stopServer(s);
}
log(
  `cold start, spawn to first 200 from /health: service median ${fmt(median(coldTimes))} ms (${coldTimes.map((t) => fmt(t)).join(', ')}); minimal node:http ${fmt(median(coldMinimal))} ms`,
);

/** RSS idle, after filling both caps, and after one GET /state (its cache built). */
async function memory(makeCase: (eventId: string) => unknown) {
  const s = await startServer('service');
  await sleep(500);
  const idle = rssMb(s.pid);
  await fillCaps(s, makeCase);
  const full = rssMb(s.pid);
  const res = await call(s.url, 'GET', '/state');
  const bytes = Number(res.headers.get('content-length'));
  await sleep(200);
  const afterState = rssMb(s.pid);
  await stopServer(s);
  return { idle, full, afterState, bytes };
}
const mem = await memory(caseRecord);
const memMax = await memory(largestCase);
log(
  `RSS: idle ${fmt(mem.idle, 1)} MB; caps full of workflow records ${fmt(mem.full, 1)} MB, after a GET /state of ${fmt(mem.bytes / 1e6, 2)} MB ${fmt(mem.afterState, 1)} MB`,
);
log(
  `RSS worst case (1,000 cases at the 64 KiB limit + 1,000 notifications): ${fmt(memMax.full, 1)} MB, after a GET /state of ${fmt(memMax.bytes / 1e6, 1)} MB ${fmt(memMax.afterState, 1)} MB`,
);
machine.loadAfter = loads();

const report = { machine, rows, rateRows, instructionRows, coldTimes, coldMinimal, mem, memMax, stateBytes };
printSummary(report);
writeReport(report);
