/**
 * The load generators the bench drives, each pinned to the generator core: `wrk` (C; installed from
 * Debian when missing, autocannon from npm only as a fallback, said so) keeps a fixed number of
 * connections busy, for throughput; `hey -q` (Go; installed from Debian when missing) offers a fixed
 * rate, for latency below saturation. Each run reports the generator's own CPU (bash's `times`), so a
 * reader can tell whether the generator was the limit.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { approvalNotification, caseRecord } from './fixtures.js';
import { GEN_CORE, pinned, TMP } from './servers.js';
import { CONNECTIONS, ensureDebian, log, RATE_WORKERS, type Shape, TOOL_CHOICE } from './settings.js';

export type RouteKey =
  | 'health'
  | 'identity'
  | 'cases'
  | 'notify'
  | 'blocklist'
  | 'state'
  | 'statebr'
  | 'state304';

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
  /** The generator's CPU over the run, one core = 1. */
  genCpu: number;
}

export type Tool = 'wrk' | 'autocannon';
export function chooseTool(): Tool {
  if (TOOL_CHOICE === 'autocannon') return 'autocannon';
  if (ensureDebian('wrk')) return 'wrk';
  log('bench: FALLBACK: wrk is not available; using autocannon (a Node.js load generator, from npm).');
  log('       It needs more CPU per request than wrk, so it can be the bottleneck: read the CPU columns.');
  return 'autocannon';
}

/** Notifications are capped (1,000): the notify run resets the store every this many requests. */
export const NOTIFY_RESET_EVERY = 500;
const BLOCK = { ip: '203.0.113.66', event_id: 'evt-bench', expires_minutes: 10 };

/** The wrk script of a route: how its requests look, and one JSON line of results at the end. */
function wrkScript(route: RouteKey, etag: string | undefined): string {
  const lua = (v: unknown) => JSON.stringify(JSON.stringify(v)); // a Lua string literal of the JSON text
  const done = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('BENCH {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"max_us":%d,"non2xx":%d,"errors":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    e.status, e.connect + e.read + e.write + e.timeout))
end
`;
  const heads: Record<RouteKey, string> = {
    health: 'wrk.path = "/health"',
    identity: 'wrk.path = "/identity/lab-admin"',
    cases: `wrk.method = "POST"
wrk.path = "/cases"
wrk.headers["Content-Type"] = "application/json"
wrk.body = ${lua(caseRecord('evt-bench'))}`,
    notify: `local post, reset
local i = 0
init = function(args)
  post = wrk.format("POST", "/notify", {["Content-Type"] = "application/json"}, ${lua(approvalNotification('evt-bench'))})
  reset = wrk.format("POST", "/reset", {["Content-Type"] = "application/json"}, "{}")
end
request = function()
  i = i + 1
  if i % ${NOTIFY_RESET_EVERY} == 0 then return reset end
  return post
end`,
    blocklist: `local post, del
local i = 0
init = function(args)
  post = wrk.format("POST", "/blocklist", {["Content-Type"] = "application/json"}, ${lua(BLOCK)})
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

/** argv as one shell line; bash's `times` after it prints the CPU its children used. */
const quote = (argv: readonly string[]) => argv.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');

/** Seconds of CPU in the last line of `times` (its children's user and system time). */
function childCpuS(out: string): number {
  const last = out.trim().split('\n').at(-1) ?? '';
  return [...last.matchAll(/(\d+)m([\d.]+)s/g)].reduce(
    (s, [, m, sec]) => s + Number(m) * 60 + Number(sec),
    0,
  );
}

/** Generator runs under way, by process group: stopped on any exit of the bench, as its servers are. */
const running = new Set<number>();
process.on('exit', () => {
  for (const group of running) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {}
  }
});

/** Runs a shell line in its own process group (so the generator under it can be stopped with it). */
function runShell(line: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', line], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    if (child.pid !== undefined) running.add(child.pid);
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.on('exit', (code) => {
      if (child.pid !== undefined) running.delete(child.pid);
      resolve({ code, out });
    });
  });
}

/** One closed-loop run (CONNECTIONS connections, each sending its next request on an answer). */
export async function runLoad(
  tool: Tool,
  port: number,
  route: RouteKey,
  seconds: number,
  etag?: string,
): Promise<LoadResult> {
  if (tool === 'autocannon') return runAutocannon(port, route, seconds, etag);
  const script = wrkScript(route, etag);
  const argv = pinned(GEN_CORE, [
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
  const { code, out } = await runShell(`${quote(argv)}; times`);
  const line = /^BENCH (.*)$/m.exec(out)?.[1];
  if (code !== 0 || !line) throw new Error(`wrk failed (${code}):\n${out}`);
  const r = JSON.parse(line);
  const duration = Number(r.duration_us) / 1e6;
  return {
    requests: Number(r.requests),
    seconds: duration,
    rps: Number(r.requests) / duration,
    p50: Number(r.p50_us) / 1000,
    p99: Number(r.p99_us) / 1000,
    max: Number(r.max_us) / 1000,
    non2xx: Number(r.non2xx),
    errors: Number(r.errors),
    genCpu: childCpuS(out) / duration,
  };
}

function runAutocannon(port: number, route: RouteKey, seconds: number, etag?: string): Promise<LoadResult> {
  const shapes: Record<
    RouteKey,
    { method?: string; path: string; body?: unknown; headers?: Record<string, string> }
  > = {
    cases: { method: 'POST', path: '/cases', body: caseRecord('evt-bench') },
    notify: { method: 'POST', path: '/notify', body: approvalNotification('evt-bench') },
    health: { path: '/health' },
    identity: { path: '/identity/lab-admin' },
    state: { path: '/state' },
    statebr: { path: '/state', headers: { 'accept-encoding': 'br' } },
    state304: { path: '/state', headers: { 'if-none-match': etag ?? '' } },
    blocklist: { method: 'POST', path: '/blocklist', body: BLOCK },
  };
  const shape = shapes[route];
  const args = ['--yes', 'autocannon@8', '-j', '-c', String(CONNECTIONS), '-d', String(seconds)];
  if (shape.method)
    args.push('-m', shape.method, '-H', 'content-type=application/json', '-b', JSON.stringify(shape.body));
  for (const [k, v] of Object.entries(shape.headers ?? {})) args.push('-H', `${k}=${v}`);
  args.push(`http://127.0.0.1:${port}${shape.path}`);
  const [program, ...rest] = pinned(GEN_CORE, ['npx', ...args]);
  const r = spawnSync(program as string, rest, { encoding: 'utf8', maxBuffer: 64 << 20 });
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

// ---- fixed offered rate ------------------------------------------------------------------------------

export const HEY = ensureDebian('hey');
if (!HEY) log('bench: fixed-rate latency not measured: hey is not available (Debian package hey)');

export interface RateResult extends LoadResult {
  offered: number;
  /** Requests that opened their worker's connection: left out of the latency figures. */
  dialed: number;
}

/**
 * One run at a fixed offered rate, in one of two shapes. hey's -q is a rate per worker and every worker's
 * ticker starts at once (one `time.Tick` per worker), so within one hey process the workers send together.
 * - `bursts`: one hey, `-c WORKERS -q rate/WORKERS`: bursts of WORKERS requests every WORKERS/rate seconds.
 * - `spread`: WORKERS hey processes of one worker each (`-c 1 -q rate/WORKERS`), started 1/rate seconds
 *   apart (and a process start later still), so their ticks fall at different moments: requests arrive
 *   one by one, as from independent clients.
 * The offered rate is the same in both. Latencies come from hey's per-request CSV (0.1 ms resolution);
 * each worker's first request, which also opened its connection, is left out.
 */
export async function runFixedRate(
  port: number,
  route: 'health' | 'cases',
  rate: number,
  seconds: number,
  shape: Shape,
): Promise<RateResult> {
  const processes = shape === 'spread' ? RATE_WORKERS : 1;
  const url = `http://127.0.0.1:${port}${route === 'cases' ? '/cases' : '/health'}`;
  const body = join(TMP, 'case.json');
  writeFileSync(body, JSON.stringify(caseRecord('evt-bench')));
  const request = route === 'cases' ? ['-m', 'POST', '-T', 'application/json', '-D', body] : [];
  const argv = pinned(GEN_CORE, [
    'hey',
    '-z',
    `${seconds}s`,
    '-c',
    String(RATE_WORKERS / processes),
    '-q',
    String(rate / RATE_WORKERS),
    '-cpus',
    '1',
    '-o',
    'csv',
    ...request,
    url,
  ]);
  const csvs = Array.from({ length: processes }, (_, i) =>
    join(TMP, `hey-${port}-${route}-${rate}-${i}.csv`),
  );
  // Each hey in the background, its PID kept: bash's `wait PID` gives each one's exit status.
  const starts = csvs
    .map((csv) => `${quote(argv)} > ${quote([csv])} & pids+=($!);`)
    .join(` sleep ${1 / rate}; `);
  const { code, out } = await runShell(
    `pids=(); ${starts} s=0; for p in "\${pids[@]}"; do wait "$p" || s=$?; done; times; exit "$s"`,
  );
  if (code !== 0) throw new Error(`hey failed (${code}):\n${out}`);
  const rows = csvs.flatMap((csv) => readFileSync(csv, 'utf8').trim().split('\n').slice(1));
  const latencies: number[] = [];
  let non2xx = 0;
  let dialed = 0;
  let last = 0;
  for (const row of rows) {
    const [time, dial, , , , , status, offset] = row.split(',');
    if (!(Number(status) >= 200 && Number(status) < 300)) non2xx += 1;
    last = Math.max(last, Number(offset) + Number(time));
    if (Number(dial) > 0) {
      dialed += 1;
      continue;
    }
    latencies.push(Number(time) * 1000);
  }
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
  return {
    offered: rate,
    requests: rows.length,
    seconds: last,
    rps: rows.length / last,
    p50: at(0.5),
    p99: at(0.99),
    max: latencies.at(-1) ?? Number.NaN,
    non2xx,
    errors: 0,
    dialed,
    genCpu: childCpuS(out) / last,
  };
}
