/**
 * The report the bench writes: the figures of every run, each summarised as its range over the rounds
 * (lowest–highest, the median beside it where a verdict needs one), ratios taken round by round against
 * the minimal server run in the same round, the targets with their verdicts (bench/verdicts.ts), and the
 * method. Printed and written to bench/RESULTS.md.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { instructionSection } from './instructions.js';
import type { RateResult } from './load.js';
import { LABELS, WIREMOCK_JAR, WIREMOCK_VERSION } from './servers.js';
import {
  CONNECTIONS,
  DURATION_S,
  fmt,
  log,
  median,
  OUT,
  QUICK,
  RATE_S,
  RATE_WORKERS,
  ROOT,
  ROUNDS,
  showSpread,
  spread,
} from './settings.js';
import {
  RATE_RUNS,
  type RateRun,
  type Report,
  type Run,
  ratios,
  SHAPE_LABELS,
  type Target,
  targets,
  times,
  verdict,
} from './verdicts.js';

const RATE_LABELS: Record<RateRun, string> = {
  service: LABELS.service,
  minimal: LABELS.minimal,
  control: `${LABELS.minimal}, again (control)`,
};

const pct = (v: number) => `${fmt(v * 100)}%`;
const int = (v: number) => fmt(v);
const of = (runs: readonly Run[] | undefined, f: (r: Run) => number) => spread((runs ?? []).map(f));
const showRounds = (t: Target) =>
  `${showSpread(spread(t.rounds), t.show)} (median ${t.show(median(t.rounds))})`;

export function printSummary(r: Report): void {
  log('');
  log(
    'route                            server             req/s          p99 ms        µs CPU/req    generator CPU',
  );
  for (const row of r.rows) {
    for (const n of row.names) {
      const runs = row.runs[n];
      log(
        `${row.label.padEnd(32)} ${LABELS[n].padEnd(17)} ${showSpread(
          of(runs, (v) => v.rps),
          int,
        ).padEnd(14)} ${showSpread(
          of(runs, (v) => v.p99),
          (v) => fmt(v, 2),
        ).padEnd(13)} ${showSpread(
          of(runs, (v) => v.cpuUs),
          (v) => fmt(v, 1),
        ).padEnd(13)} ${showSpread(
          of(runs, (v) => v.genCpu),
          pct,
        )}`,
      );
    }
  }
  for (const rr of r.rateRows)
    for (const n of RATE_RUNS)
      log(
        `${`${rr.label} at ${rr.rate}/s, ${rr.shape}`.padEnd(32)} ${RATE_LABELS[n].padEnd(17)} p50 ${showSpread(
          of(rr.runs[n], (v) => v.p50),
          (v) => fmt(v, 2),
        )} p99 ${showSpread(
          of(rr.runs[n], (v) => v.p99),
          (v) => fmt(v, 2),
        )} max ${showSpread(
          of(rr.runs[n], (v) => v.max),
          (v) => fmt(v, 1),
        )} ms`,
      );
  log('');
  for (const t of targets(r)) log(`${verdict(t).padEnd(12)}  ${t.name}: ${showRounds(t)}`);
}

/** How to read the figures, from what the runs themselves recorded. */
function readFirst(r: Report): string {
  const before = Number(r.machine.loadBefore.split(' ')[0]);
  const all = r.rows.flatMap((row) => row.names.flatMap((n) => row.runs[n].map((run) => ({ row, n, run }))));
  const genBound = all.filter(({ run }) => run.genCpu >= 0.9);
  const unsaturated = all.filter(({ run }) => run.genCpu < 0.9 && run.serverCpu < 0.9);
  const out = [
    `The machine's 1-minute load average before the run was ${fmt(before, 2)} on ${r.machine.nproc} cores${before > 0.5 ? ' (other work was running: figures are noisier than on a quiet machine)' : ''}. During the closed-loop runs the bench itself keeps two cores busy (the server and wrk), so a load average near 2 there is its own; above it, other work shared the machine. The spread fixed-rate runs start ${RATE_WORKERS} hey processes, whose threads wake at different moments: the load average counts them, so it reads higher there while both cores are far from busy (the CPU columns).`,
  ];
  out.push(
    unsaturated.length === 0
      ? 'In every closed-loop run one of the two was saturated: the server (the figure is the server’s) or, where the generator column reads 90% or more, wrk (the figure is then a lower bound for the server).'
      : `In ${unsaturated.length} closed-loop run(s) neither the server's core nor wrk's reached 90%: something else took the CPU there (${[...new Set(unsaturated.map(({ row, n }) => `${row.label}, ${LABELS[n]}`))].join('; ')}).`,
  );
  if (genBound.length)
    out.push(
      `wrk was the limit (90% or more of its core) in: ${[...new Set(genBound.map(({ row, n }) => `${row.label}, ${LABELS[n]}`))].join('; ')}. Those figures are lower bounds for the server.`,
    );
  const minimalSwing = r.rows
    .filter((row) => row.runs.minimal?.length)
    .map((row) => {
      const s = of(row.runs.minimal, (v) => v.rps);
      return `${row.label} ${showSpread(s, int)}`;
    });
  if (minimalSwing.length)
    out.push(
      `The minimal server's own req/s over the rounds (its swing is this machine's noise): ${minimalSwing.join('; ')}.`,
    );
  return out.join(' ');
}

function throughputTable(r: Report): string {
  return r.rows
    .flatMap((row) =>
      row.names.map((n) => {
        const runs = row.runs[n];
        return `| ${row.label} | ${LABELS[n]} | ${showSpread(
          of(runs, (v) => v.rps),
          int,
        )} | ${showSpread(
          of(runs, (v) => v.p50),
          (v) => fmt(v, 2),
        )} | ${showSpread(
          of(runs, (v) => v.p99),
          (v) => fmt(v, 2),
        )} | ${showSpread(
          of(runs, (v) => v.serverCpu),
          pct,
        )} | ${showSpread(
          of(runs, (v) => v.cpuUs),
          (v) => fmt(v, 1),
        )} | ${showSpread(
          of(runs, (v) => v.genCpu),
          pct,
        )} | ${runs.reduce((s, v) => s + v.non2xx, 0)} |`;
      }),
    )
    .join('\n');
}

function ratioTable(r: Report): string {
  return r.rows
    .filter((row) => row.runs.minimal?.length && row.key !== 'state')
    .flatMap((row) =>
      row.names
        .filter((n) => n !== 'minimal')
        .map((n) => {
          const byRps = spread(ratios(row.runs[n], row.runs.minimal, (v) => v.rps));
          const byCpu = spread(ratios(row.runs.minimal, row.runs[n], (v) => v.cpuUs));
          const name = n === 'service' ? '**service**' : LABELS[n];
          return `| ${row.label} | ${name} | ${showSpread(byRps, times)} | ${times(byRps.median)} | ${showSpread(byCpu, times)} |`;
        }),
    )
    .join('\n');
}

function rateTable(r: Report): string {
  return r.rateRows
    .flatMap((rr) =>
      RATE_RUNS.filter((n) => rr.runs[n]?.length).map((n) => {
        const runs = rr.runs[n] ?? [];
        const s = (f: (v: RateResult & Run) => number, d = 2) =>
          showSpread(spread(runs.map(f)), (v) => fmt(v, d));
        return `| ${rr.label} | ${rr.rate} | ${SHAPE_LABELS[rr.shape]} | ${RATE_LABELS[n]} | ${s((v) => v.rps, 0)} | ${s((v) => v.p50)} | ${s((v) => v.p99)} | ${s((v) => v.max, 1)} | ${s((v) => v.serverCpu * 100, 0)}% | ${s((v) => v.genCpu * 100, 0)}% | ${runs.reduce((a, v) => a + v.non2xx, 0)} |`;
      }),
    )
    .join('\n');
}

function roundsTable(r: Report): string {
  const lines: string[] = [];
  for (const row of r.rows)
    for (let i = 0; i < ROUNDS; i++)
      for (const n of row.names) {
        const v = row.runs[n][i];
        if (v)
          lines.push(
            `| ${row.label} | ${LABELS[n]} | ${i + 1} | ${fmt(v.rps)} | ${fmt(v.p99, 2)} | ${pct(v.serverCpu)} | ${pct(v.genCpu)} | ${fmt(v.loadBefore, 2)} → ${fmt(v.loadAfter, 2)} |`,
          );
      }
  for (const rr of r.rateRows)
    for (let i = 0; i < ROUNDS; i++)
      for (const n of RATE_RUNS) {
        const v = rr.runs[n]?.[i];
        if (v)
          lines.push(
            `| ${rr.label} at ${rr.rate}/s, ${SHAPE_LABELS[rr.shape]} | ${RATE_LABELS[n]} | ${i + 1} | ${fmt(v.rps)} | ${fmt(v.p99, 2)} | ${pct(v.serverCpu)} | ${pct(v.genCpu)} | ${fmt(v.loadBefore, 2)} → ${fmt(v.loadAfter, 2)} |`,
          );
      }
  return lines.join('\n');
}

export function writeReport(r: Report): void {
  if (!OUT) return;
  const m = r.machine;
  const serverCpus = r.rows.flatMap((row) => row.names.flatMap((n) => row.runs[n].map((v) => v.serverCpu)));
  const genCpus = r.rows.flatMap((row) => row.names.flatMap((n) => row.runs[n].map((v) => v.genCpu)));
  const loads = [
    ...r.rows.flatMap((row) =>
      row.names.flatMap((n) => row.runs[n].flatMap((v) => [v.loadBefore, v.loadAfter])),
    ),
    ...r.rateRows.flatMap((rr) =>
      Object.values(rr.runs).flatMap((runs) => runs.flatMap((v) => [v.loadBefore, v.loadAfter])),
    ),
  ];
  const range = (xs: number[], f: (v: number) => string) => showSpread(spread(xs), f);
  const md = `# Benchmark results

Generated by \`npm run bench\` (bench/run.ts) on ${m.date}${QUICK ? ' in quick mode (1 round of 2 s: a smoke run, not figures to quote)' : ''}.
Every figure is a range over the ${ROUNDS} round${ROUNDS > 1 ? 's' : ''} (lowest–highest); no single run is quoted
on its own. Ratios are taken round by round against the minimal server run in the same round.
Reading and decisions: docs/hardening.md, "Benchmark".

## Method

- **Servers.** The built service (dist/app/api/main.js, the whole pipeline on: body read, validation, case store,
  journal, access checks, one JSON log line per request written to a file as in a container). The baseline
  is the **minimal node:http server** (bench/minimal-server.ts): no framework, no validation, no journal, no
  log; the most a Node process can do here. Anchors in the same run: plain Hono on @hono/node-server
  (bench/hono-server.ts)${WIREMOCK_JAR ? `, and WireMock ${WIREMOCK_VERSION} (the standalone jar from the \`wiremock\` npm package, on Java; static stubs answering like the minimal server, its request journal capped at 1,000; its rounds after the Node servers')` : "; WireMock was not run (off by default: its JVM raised the load average to 8-9 during and after its rounds, disturbing the Node servers' runs; `BENCH_WIREMOCK=1` adds it)"}.
- **Pinning.** ${m.pinned ? 'The load generator on core 0, the server on core 1 (taskset).' : 'None (fewer than two cores, or no taskset).'}
- **Throughput (closed loop).** ${m.tool === 'wrk' ? 'wrk (C), 1 thread' : '**autocannon (fallback: wrk was not available)**'}, ${CONNECTIONS} keep-alive connections, each
  sending its next request as soon as the last is answered: the server is saturated, so req/s and the CPU
  time per request are the figures; latency under a closed loop follows throughput (Little's law) and is
  not a target. 1 s warm-up, then ${DURATION_S} s per run; the servers alternate round by round.
- **Latency at a fixed offered rate.** \`hey\` (Go) with ${RATE_WORKERS} workers and \`-q\`, which is a rate *per
  worker*: the offered rate is -q × ${RATE_WORKERS} (for 4,000 req/s, -q ${4000 / RATE_WORKERS}). Each worker waits for
  an answer before its next request, so a server that falls behind is offered less (the achieved rate is
  in the table). p50, p99 and max come from hey's per-request CSV (0.1 ms resolution), leaving out each
  worker's first request (it also opened the connection). One hey starts all its workers' tickers at once,
  so its workers send together; the rate is offered in two shapes:
  - **spread arrivals** (the target): ${RATE_WORKERS} hey processes of one worker each, started one after another
    (1/rate seconds apart, and a process start), so their ticks fall at different moments and requests
    arrive one by one, as from independent clients: a lab's traffic, below saturation;
  - **bursts of ${RATE_WORKERS}**: one hey with ${RATE_WORKERS} workers, so ${RATE_WORKERS} requests arrive together every ${RATE_WORKERS}/rate
    seconds. Each burst saturates the server for a moment, and the p99 is close to the time it takes to
    drain one: ${RATE_WORKERS} times the CPU per request, which the throughput ratios already judge. Read beside
    the target, not a target.
  Each server is first brought to a steady state (a closed-loop run of wrk on the route, then 2 s idle),
  then each run has ${QUICK ? 1 : 5} s of warm-up at its own rate (after a change of load a server's CPU per request
  takes some seconds to come down, the minimal server's too) and ${RATE_S} s measured. The service, the
  minimal server and the minimal server once more alternate, each reset before its run, and the order
  turns each round (service first, then minimal first, then the control first), so that no server always
  runs first after the rate or shape has changed. The third run is a control: the ratio of the
  minimal server's two p99s in a round is what the measurement gives for one server against itself, the
  noise floor of the service's ratio.
- **Load.** The 1-minute load average is recorded before and after every run (the tables), and the bench
  waits for a settled machine (load under 0.5, at most 2 minutes) before it starts.

## Machine and load

| | |
|---|---|
| cores (\`nproc\`) | ${m.nproc} |
| CPU | ${m.cpu} |
| memory | ${m.memGb} GiB |
| Node.js | ${m.node} |
| kernel | ${m.kernel} |
| load average (1, 5, 15 min) before / after the whole run | ${m.loadBefore} / ${m.loadAfter} |
| 1-minute load average around the runs | ${range(loads, (v) => fmt(v, 2))} |
| server CPU during the closed-loop runs (one core = 100%) | ${range(serverCpus, pct)} |
| generator CPU during the closed-loop runs | ${range(genCpus, pct)} |

**Read this first.** ${readFirst(r)}

## Throughput (closed loop, ${CONNECTIONS} connections)

| route | server | req/s | p50 ms | p99 ms | server CPU | CPU µs / request | generator CPU | non-2xx |
|---|---|---:|---:|---:|---:|---:|---:|---:|
${throughputTable(r)}

| route | server | / minimal, by req/s (rounds) | median | by CPU per request (rounds) |
|---|---|---:|---:|---:|
${ratioTable(r)}
${
  r.rows.find((w) => w.key === 'state')?.runs.bytes?.length
    ? `\nFor GET /state the physical limit is not the minimal server (it serialises its state per request) but the same number of bytes written from one constant buffer (\`same bytes, constant\`): the service reaches ${showSpread(spread(ratios(r.rows.find((w) => w.key === 'state')?.runs.service, r.rows.find((w) => w.key === 'state')?.runs.bytes, (v) => v.rps)), times)} of its req/s.\n`
    : ''
}
## Latency at a fixed offered rate (hey -q, ${RATE_WORKERS} workers)

| route | offered req/s | arrivals | server | achieved req/s | p50 ms | p99 ms | max ms | server CPU | generator CPU | non-2xx |
|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|
${rateTable(r)}

${instructionSection(r.instructionRows)}
## Start-up and memory

| | |
|---|---:|
| cold start, spawn to the first 200 from /health (${r.coldTimes.length} starts) | ${showSpread(spread(r.coldTimes), (v) => fmt(v))} ms (median ${fmt(median(r.coldTimes))}) |
| the same for the minimal node:http server (${r.coldMinimal.length} starts) | ${showSpread(spread(r.coldMinimal), (v) => fmt(v))} ms |
| RSS idle | ${fmt(r.mem.idle, 1)} MB |
| RSS, both caps full of workflow-sized records (1,000 cases, 1,000 approval notifications) | ${fmt(r.mem.full, 1)} MB |
| … and after one GET /state (${fmt(r.mem.bytes / 1e6, 2)} MB, its cache built) | ${fmt(r.mem.afterState, 1)} MB |
| worst case: 1,000 cases at the 64 KiB limit + 1,000 notifications | ${fmt(r.memMax.full, 1)} MB |
| … and after one GET /state (${fmt(r.memMax.bytes / 1e6, 1)} MB) | ${fmt(r.memMax.afterState, 1)} MB |

## Targets

A target is met when every round meets it; "met by the median" when the median round does but not all.

| target | rounds | |
|---|---|---|
${targets(r)
  .map((t) => `| ${t.name} | ${showRounds(t)} | ${verdict(t)} |`)
  .join('\n')}

## Every run

| route | server | round | req/s | p99 ms | server CPU | generator CPU | load before → after |
|---|---|---:|---:|---:|---:|---:|---|
${roundsTable(r)}

Notes:
- GET /state answers ${fmt(r.stateBytes / 1e6, 2)} MB here: 1,000 cases as the reference workflow writes them, 1,000
  approval notifications with their resume URLs, a full journal. The service serves it from a cache per
  state version; the minimal server serialises its (smaller: no journal) state on every request;
  \`same bytes, constant\` (the minimal server after \`POST /state-bytes\`) writes as many bytes from one
  constant buffer.
- GET /state with \`Accept-Encoding: br\`: compressed once per state version; nothing changes the state
  during the run, so the figure is a read between changes.
- POST /notify: notifications are capped at 1,000, so the run sends a \`POST /reset\` every 500 requests
  on both servers.
- POST + DELETE /blocklist: ${CONNECTIONS} connections contend for the one blockable address, so 409 and 404
  are part of the mix (the non-2xx column) on both servers.
`;
  writeFileSync(OUT.startsWith('/') ? OUT : join(ROOT, OUT), md);
  log(`\nwrote ${OUT}`);
}
