/**
 * The bench's settings (environment variables) and small helpers shared by its parts.
 *
 * BENCH_QUICK=1 (or --quick: 1 round of 2 s, for a smoke run), BENCH_DURATION_S (5), BENCH_ROUNDS (3),
 * BENCH_CONNECTIONS (32), BENCH_ROUTES (comma list of route keys), BENCH_OUT (bench/RESULTS.md; a quick
 * run writes nothing unless BENCH_OUT is set), BENCH_TOOL (wrk|autocannon), BENCH_SETTLE_S (120; 0 in
 * quick mode: how long to wait for a 1-minute load average under 0.5 first), BENCH_WIREMOCK (1 adds
 * WireMock as an anchor; off by default, bench/servers.ts says why), BENCH_RATES (1000,4000: the fixed offered rates, requests per second; empty skips them),
 * BENCH_RATE_S (10; 3 in quick mode: seconds per fixed-rate run), BENCH_RATE_WORKERS (20: hey's workers),
 * BENCH_RATE_SHAPES (spread,bursts: how the fixed rate arrives, bench/load.ts; a comma list),
 * BENCH_INSTRUCTIONS (1; 0 skips the instruction counts under callgrind, bench/instructions.ts).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const env = process.env;
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const QUICK = env.BENCH_QUICK === '1' || process.argv.includes('--quick');
export const DURATION_S = Number(env.BENCH_DURATION_S ?? (QUICK ? 2 : 5));
export const ROUNDS = Number(env.BENCH_ROUNDS ?? (QUICK ? 1 : 3));
export const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 32);
export const OUT = env.BENCH_OUT ?? (QUICK ? undefined : 'bench/RESULTS.md');
export const ROUTE_FILTER = env.BENCH_ROUTES ? env.BENCH_ROUTES.split(',') : undefined;
export const TOOL_CHOICE = env.BENCH_TOOL;
export const SETTLE_S = Number(env.BENCH_SETTLE_S ?? (QUICK ? 0 : 120));
export const WIREMOCK_WANTED = env.BENCH_WIREMOCK === '1';
export const RATES = (env.BENCH_RATES ?? '1000,4000')
  .split(',')
  .filter(Boolean)
  .map(Number)
  .filter((n) => n > 0);
export const RATE_S = Number(env.BENCH_RATE_S ?? (QUICK ? 3 : 10));
export const RATE_WORKERS = Number(env.BENCH_RATE_WORKERS ?? 20);
export const SHAPES = ['spread', 'bursts'] as const;
export type Shape = (typeof SHAPES)[number];
export const RATE_SHAPES: readonly Shape[] = (env.BENCH_RATE_SHAPES ?? SHAPES.join(','))
  .split(',')
  .filter((v): v is Shape => (SHAPES as readonly string[]).includes(v));
export const INSTRUCTIONS_WANTED = env.BENCH_INSTRUCTIONS !== '0';
export const NPROC = Number(execFileSync('nproc').toString().trim()) || 1;

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
export const log = (line: string) => process.stdout.write(`${line}\n`);
export const fmt = (n: number | undefined, digits = 0) =>
  n !== undefined && Number.isFinite(n) ? n.toFixed(digits) : 'n/a';
export const load1 = () => loadavg()[0] ?? Number.NaN;
export const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

export function median(xs: readonly number[]): number {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** The spread of a figure over the rounds: lowest, median, highest. */
export interface Spread {
  min: number;
  median: number;
  max: number;
}
export function spread(xs: readonly number[]): Spread {
  const s = xs.filter(Number.isFinite);
  if (s.length === 0) return { min: Number.NaN, median: Number.NaN, max: Number.NaN };
  return { min: Math.min(...s), median: median(s), max: Math.max(...s) };
}
/** `a–b` (or `a` when every round gave the same), with the given formatter. */
export function showSpread(s: Spread, f: (v: number) => string): string {
  const lo = f(s.min);
  const hi = f(s.max);
  return lo === hi ? lo : `${lo}–${hi}`;
}

/** Installs a Debian package when its command is missing and this is root; true when it is there. */
export function ensureDebian(command: string, pkg = command): boolean {
  if (has(command)) return true;
  if (!has('apt-get') || process.getuid?.() !== 0) return false;
  log(`bench: ${command} is missing; installing it from Debian (apt-get install ${pkg})`);
  let r = spawnSync('apt-get', ['install', '-y', '-q', pkg], { stdio: 'inherit' });
  if (r.status !== 0) {
    spawnSync('apt-get', ['update', '-q'], { stdio: 'inherit' });
    r = spawnSync('apt-get', ['install', '-y', '-q', pkg], { stdio: 'inherit' });
  }
  return r.status === 0 && has(command);
}
