/**
 * What the bench measured, as the report holds it, and the targets judged on it: each target's figure
 * round by round (ratios against the minimal server run in the same round) and its verdict. The report
 * (bench/report.ts) prints and writes them.
 */
import type { InstructionRow } from './instructions.js';
import type { LoadResult, RateResult, RouteKey } from './load.js';
import type { ServerName } from './servers.js';
import { CONNECTIONS, fmt, median, RATE_WORKERS, type Shape } from './settings.js';

export interface Run extends LoadResult {
  serverCpu: number;
  cpuUs: number;
  loadBefore: number;
  loadAfter: number;
}
export interface Row {
  key: RouteKey;
  label: string;
  names: ServerName[];
  runs: Record<ServerName, Run[]>;
}
/**
 * The fixed-rate runs of a round (their order turns round by round, bench/run.ts): the service, the
 * minimal server, and the minimal server once more as a control, so the p99 ratio the target reads has
 * beside it the same ratio of the minimal server against itself in the same round: the noise floor of
 * the measurement.
 */
export const RATE_RUNS = ['service', 'minimal', 'control'] as const;
export type RateRun = (typeof RATE_RUNS)[number];

export interface RateRow {
  route: 'cases' | 'health';
  label: string;
  rate: number;
  shape: Shape;
  runs: Partial<Record<RateRun, (RateResult & Run)[]>>;
}
export interface Machine {
  date: string;
  nproc: number;
  cpu: string;
  node: string;
  kernel: string;
  memGb: string;
  loadBefore: string;
  loadAfter: string;
  tool: string;
  pinned: boolean;
}
interface Memory {
  idle: number;
  full: number;
  afterState: number;
  bytes: number;
}
export interface Report {
  machine: Machine;
  rows: Row[];
  rateRows: RateRow[];
  instructionRows: InstructionRow[];
  coldTimes: number[];
  coldMinimal: number[];
  mem: Memory;
  memMax: Memory;
  stateBytes: number;
}

/** A ratio as the report shows it: `1.23x`. */
export const times = (v: number) => `${fmt(v, 2)}x`;
const ms = (v: number) => `${fmt(v, 2)} ms`;

/** Round-by-round ratios of two servers' runs (run i of each is round i). */
export function ratios(
  a: readonly Run[] | undefined,
  b: readonly Run[] | undefined,
  f: (r: Run) => number,
): number[] {
  return (a ?? []).map((r, i) => {
    const other = b?.[i];
    return other ? f(r) / f(other) : Number.NaN;
  });
}

export const SHAPE_LABELS: Record<Shape, string> = {
  spread: 'spread arrivals',
  bursts: `bursts of ${RATE_WORKERS}`,
};

/** The fixed-rate target: the service's p99 at most this many times the minimal server's. */
const P99_WITHIN = 1.5;

export interface Target {
  name: string;
  rounds: number[];
  ok: (v: number) => boolean;
  show: (v: number) => string;
  /**
   * Not a target, read beside one: `control`, how often the same test holds for a server against itself;
   * `bursts`, the same test with hey's synchronised bursts (their p99 is a burst's drain, CPU per request).
   */
  reading?: 'control' | 'bursts';
}
/** met: every round; by the median: the median round, not all; missed otherwise. */
export function verdict(t: Target): string {
  const good = t.rounds.filter((v) => Number.isFinite(v) && t.ok(v)).length;
  if (t.reading) return `${t.reading}: within ${P99_WITHIN}x in ${good} of ${t.rounds.length} rounds`;
  if (t.rounds.length > 0 && good === t.rounds.length) return 'met';
  if (t.ok(median(t.rounds))) return `met by the median (${good} of ${t.rounds.length} rounds)`;
  return `**missed** (${good} of ${t.rounds.length} rounds)`;
}

/** The targets the report judges, each with its figure round by round; those with no rounds left out. */
export function targets(r: Report): Target[] {
  const row = (k: RouteKey) => r.rows.find((w) => w.key === k);
  const rps = (k: RouteKey) => ratios(row(k)?.runs.service, row(k)?.runs.minimal, (v) => v.rps);
  const cpu = (k: RouteKey) => ratios(row(k)?.runs.minimal, row(k)?.runs.service, (v) => v.cpuUs);
  const list: Target[] = [
    {
      name: 'GET /health ≥ 0.75x the minimal server (req/s)',
      rounds: rps('health'),
      ok: (v) => v >= 0.75,
      show: times,
    },
    {
      name: 'POST /cases ≥ 0.60x the minimal server (req/s)',
      rounds: rps('cases'),
      ok: (v) => v >= 0.6,
      show: times,
    },
    {
      name: 'POST /cases ≥ 0.70x the minimal server (req/s; the goal)',
      rounds: rps('cases'),
      ok: (v) => v >= 0.7,
      show: times,
    },
    {
      name: 'GET /health ≥ 0.75x the minimal server (CPU per request)',
      rounds: cpu('health'),
      ok: (v) => v >= 0.75,
      show: times,
    },
    {
      name: 'POST /cases ≥ 0.60x the minimal server (CPU per request)',
      rounds: cpu('cases'),
      ok: (v) => v >= 0.6,
      show: times,
    },
  ];
  for (const rr of r.rateRows)
    list.push(
      {
        name: `${rr.label} at ${rr.rate} req/s offered, ${SHAPE_LABELS[rr.shape]}: the service's p99 within ${P99_WITHIN}x the minimal server's`,
        rounds: ratios(rr.runs.service, rr.runs.minimal, (v) => v.p99),
        ok: (v) => v <= P99_WITHIN,
        show: times,
        ...(rr.shape === 'bursts' ? { reading: 'bursts' as const } : {}),
      },
      {
        name: `… the same ratio for the minimal server's second run against its first, in the same rounds`,
        rounds: ratios(rr.runs.control, rr.runs.minimal, (v) => v.p99),
        ok: (v) => v <= P99_WITHIN,
        show: times,
        reading: 'control',
      },
    );
  const state = row('state')?.runs.service;
  if (state)
    list.push({
      name: `GET /state (caps full) p99 < 50 ms at ${CONNECTIONS} connections`,
      rounds: state.map((v) => v.p99),
      ok: (v) => v < 50,
      show: ms,
    });
  list.push(
    {
      name: 'cold start to the first /health < 200 ms',
      rounds: r.coldTimes,
      ok: (v) => v < 200,
      show: (v) => `${fmt(v)} ms`,
    },
    {
      name: 'RSS < 100 MB with both caps full of workflow-sized records',
      rounds: [r.mem.afterState],
      ok: (v) => v < 100,
      show: (v) => `${fmt(v, 1)} MB`,
    },
  );
  return list.filter((t) => t.rounds.length > 0);
}
