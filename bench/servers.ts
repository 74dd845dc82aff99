/**
 * The servers the bench starts: the built service (dist/app/api/main.js), the minimal node:http server and
 * plain Hono (bench/minimal-server.ts and bench/hono-server.ts, bundled into plain JavaScript first so
 * they start and run as the service does, with no TypeScript loader), and WireMock when Java is here.
 * Each is pinned to the server core, its stdout to a log file as in a container, and stopped by PID
 * on any exit of the bench.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { approvalNotification, caseRecord } from './fixtures.js';
import { has, log, NPROC, ROOT, sleep, WIREMOCK_WANTED } from './settings.js';

export const TMP = mkdtempSync(join(tmpdir(), 'soar-bench-'));
/** Servers this run started, by PID: stopped on any exit, a crash included, so none is left behind. */
const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(TMP, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

export type ServerName = 'service' | 'minimal' | 'hono' | 'bytes' | 'wiremock';
export const LABELS: Record<ServerName, string> = {
  service: 'service',
  minimal: 'minimal node:http',
  hono: 'plain Hono',
  bytes: 'same bytes, constant',
  wiremock: 'WireMock',
};

export const PIN = NPROC >= 2 && has('taskset');
export const GEN_CORE = '0';
export const SERVER_CORE = '1';
export const pinned = (core: string, argv: readonly string[]): string[] =>
  PIN ? ['taskset', '-c', core, ...argv] : [...argv];

const SERVICE = join(ROOT, 'dist/app/api/main.js');
if (!existsSync(SERVICE)) {
  log('bench: dist/ is missing; building it (npm run build)');
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
}
/** The baselines, bundled once per run. */
const scripts: Record<Exclude<ServerName, 'wiremock'>, string> = {
  service: SERVICE,
  minimal: join(TMP, 'minimal-server.mjs'),
  hono: join(TMP, 'hono-server.mjs'),
  bytes: join(TMP, 'minimal-server.mjs'),
};
for (const name of ['minimal-server', 'hono-server']) {
  await build({
    entryPoints: [join(ROOT, 'bench', `${name}.ts`)],
    outfile: join(TMP, `${name}.mjs`),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
}

export const WIREMOCK_VERSION = '3.13.2';
export const WIREMOCK_JAR = findWiremock();

/**
 * WireMock as a second anchor, with BENCH_WIREMOCK=1 and Java: the `wiremock` npm package bundles its
 * standalone jar, installed once into a cache outside the repository. Off by default: on a two-core
 * machine its JVM raised the 1-minute load average from about 1 to 8-9 during and after its rounds,
 * and the Node servers' next runs shared the cores with it, which costs the main figures more than the
 * anchor adds (it answers at a tenth of the minimal server's rate or less).
 */
function findWiremock(): string | undefined {
  if (!WIREMOCK_WANTED) return undefined;
  if (!has('java')) {
    log('bench: WireMock not run: no java on this machine');
    return undefined;
  }
  const env = process.env;
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
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    if (r.status !== 0 || !existsSync(jar)) {
      log('bench: WireMock not run: the wiremock npm package could not be installed');
      return undefined;
    }
  }
  return jar;
}

/** WireMock's stubs: the minimal server's answers, as static responses. */
function wiremockRoot(): string {
  const root = join(TMP, 'wiremock');
  mkdirSync(join(root, 'mappings'), { recursive: true });
  const stub = (name: string, method: string, url: string, status: number, body: unknown) =>
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

export interface Server {
  name: ServerName;
  child: ChildProcess;
  pid: number;
  port: number;
  url: string;
  coldMs: number;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** The command line of a Node server of the bench (not WireMock's). */
export const serverArgv = (name: Exclude<ServerName, 'wiremock'>): string[] => [
  process.execPath,
  scripts[name],
];

/** A server process this run started: stopped by PID on any exit of the bench. */
export function tracked(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Polls the server's /health every pollMs until a 200 (true), or until timeoutMs or its exit (false). */
export async function untilHealthy(
  port: number,
  child: ChildProcess,
  timeoutMs: number,
  pollMs = 2,
): Promise<boolean> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs && child.exitCode === null) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      await res.arrayBuffer();
      if (res.status === 200) return true;
    } catch {}
    await sleep(pollMs);
  }
  return false;
}

/** Starts a server pinned to the server core; resolves once it answers /health with 200. */
export async function startServer(name: ServerName, timeoutMs = name === 'wiremock' ? 90_000 : 15_000) {
  const port = await freePort();
  const logFile = join(TMP, `${name}-${port}.log`);
  const command =
    name === 'wiremock'
      ? // Its request journal capped like the service's (1,000 entries); the banner off.
        [
          'java',
          '-jar',
          WIREMOCK_JAR ?? '',
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
      : serverArgv(name);
  const [program, ...args] = pinned(SERVER_CORE, command);
  const started = performance.now();
  const child = spawn(program as string, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', openSync(logFile, 'w'), 'inherit'],
  });
  tracked(child);
  if ((await untilHealthy(port, child, timeoutMs)) && child.pid !== undefined)
    return {
      name,
      child,
      pid: child.pid,
      port,
      url: `http://127.0.0.1:${port}`,
      coldMs: performance.now() - started,
    } satisfies Server;
  child.kill('SIGKILL');
  throw new Error(`${name} did not answer /health within ${timeoutMs} ms`);
}

export function stopServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (server.child.exitCode !== null) return resolve();
    server.child.once('exit', () => resolve());
    server.child.kill('SIGTERM');
    setTimeout(() => server.child.kill('SIGKILL'), 3000).unref();
  });
}

const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
/** CPU time (user + system) a process has used, in seconds. */
export function cpuS(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(f[11]) + Number(f[12])) / CLK_TCK;
}
export const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

export async function call(url: string, method: string, path: string, body?: unknown): Promise<Response> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res;
}

/** Fills both caps (1,000 cases, 1,000 notifications), 16 requests at a time. */
export async function fillCaps(server: Server, makeCase: (eventId: string) => unknown): Promise<void> {
  const jobs: (() => Promise<Response>)[] = [];
  for (let i = 0; i < 1000; i++) {
    jobs.push(() => call(server.url, 'POST', '/cases', makeCase(`evt-${i}`)));
    jobs.push(() => call(server.url, 'POST', '/notify', approvalNotification(`evt-${i}`, i)));
  }
  while (jobs.length) await Promise.all(jobs.splice(0, 16).map((job) => job()));
}
