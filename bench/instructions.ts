/**
 * Instructions per request, counted by callgrind (valgrind): the one figure of the bench that does not
 * move with what else the machine runs, where req/s and CPU time per request do (and the service's ratio
 * to the minimal server with them). Instructions are counted, not timed; what still moves them is
 * the JIT (which functions a given start has optimised by the time the counting begins), so every
 * figure is a range over separately started servers.
 *
 * What it leaves out, so it is a companion to the timed figures, not a replacement: the kernel (the
 * socket's read and write are the same for both servers), memory stalls, and the batching of a saturated
 * loop (under valgrind every request is its own turn of the event loop).
 *
 * Method: each server runs under `valgrind --tool=callgrind`, pinned to the server core; a client of its
 * own (plain node:net, 8 keep-alive connections, each sending its next request on an answer) warms it up
 * with WARM_UP requests so the JIT has compiled the path, then the counters are zeroed
 * (`callgrind_control -z`), COUNTED requests are sent, and the counters dumped (`callgrind_control -d`):
 * the dump's total over COUNTED is the figure.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { caseRecord } from './fixtures.js';
import {
  freePort,
  LABELS,
  pinned,
  SERVER_CORE,
  type ServerName,
  serverArgv,
  TMP,
  tracked,
  untilHealthy,
} from './servers.js';
import { ensureDebian, log, median, ROUNDS, showSpread, sleep, spread } from './settings.js';

const WARM_UP = 2000;
const COUNTED = 2000;
const CONNECTIONS = 8;

export type CountedRoute = 'health' | 'cases';
type NodeServer = Exclude<ServerName, 'wiremock' | 'bytes'>;
export interface InstructionRow {
  label: string;
  /** Instructions per request, one per round, by server. */
  counts: Partial<Record<ServerName, number[]>>;
}

/** valgrind with callgrind_control, installed from Debian when missing; asked only when the counts are wanted. */
export const valgrindReady = () => ensureDebian('valgrind') && ensureDebian('callgrind_control', 'valgrind');

/** Counts each server's instructions per request on each route, ROUNDS times, the servers alternating. */
export async function countInstructions(
  routes: readonly (readonly [CountedRoute, string])[],
  names: readonly NodeServer[],
): Promise<InstructionRow[]> {
  const rows: InstructionRow[] = [];
  for (const [route, label] of routes) {
    const counts = Object.fromEntries(names.map((name) => [name, [] as number[]]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of names) {
        const count = await countOnce(name, route);
        counts[name]?.push(count);
        log(
          `  ${label.padEnd(32)} ${LABELS[name].padEnd(17)} round ${round + 1}: ${count} instructions/request`,
        );
      }
    }
    rows.push({ label, counts });
  }
  return rows;
}

/** valgrind and its control tool name their pipes after USER and HOST: the same values on both sides. */
const VG_ENV = { USER: 'bench', LOGNAME: 'bench', HOST: '127.0.0.1' };

async function countOnce(name: NodeServer, route: CountedRoute): Promise<number> {
  const port = await freePort();
  const out = join(TMP, `callgrind-${name}-${port}`);
  const [program, ...args] = pinned(SERVER_CORE, [
    'valgrind',
    '--tool=callgrind',
    `--callgrind-out-file=${out}.%p`,
    ...serverArgv(name),
  ]);
  const child = tracked(
    spawn(program as string, args, {
      env: { PATH: process.env.PATH ?? '', ...VG_ENV, PORT: String(port) },
      stdio: 'ignore',
    }),
  );
  try {
    if (!(await untilHealthy(port, child, 60_000, 200)))
      throw new Error(`${name} under valgrind did not answer /health within 60 s`);
    await send(port, route, WARM_UP);
    control(child, '-z');
    await send(port, route, COUNTED);
    control(child, '-d');
    const dump = await dumped(`${out}.${child.pid}.1`);
    const total = Number(/^(?:summary|totals): (\d+)/m.exec(dump)?.[1]);
    if (!Number.isFinite(total) || total === 0) throw new Error(`no callgrind total for ${name}`);
    return Math.round(total / COUNTED);
  } finally {
    child.kill('SIGKILL');
  }
}

function control(child: ChildProcess, flag: '-z' | '-d'): void {
  execFileSync('callgrind_control', [flag, String(child.pid)], {
    env: { PATH: process.env.PATH ?? '', ...VG_ENV },
    stdio: 'ignore',
  });
}

async function dumped(file: string): Promise<string> {
  for (let waited = 0; waited < 30_000; waited += 100) {
    if (existsSync(file)) {
      const text = readFileSync(file, 'utf8');
      if (/^(?:summary|totals): /m.test(text)) return text;
    }
    await sleep(100);
  }
  throw new Error(`callgrind wrote no dump ${file}`);
}

/** `total` requests over CONNECTIONS keep-alive connections, each sending its next request on an answer. */
function send(port: number, route: CountedRoute, total: number): Promise<void> {
  const body = JSON.stringify(caseRecord('evt-bench'));
  const request =
    route === 'health'
      ? `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`
      : `POST /cases HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  let left = total;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let pending = '';
      const next = () => {
        if (left-- > 0) socket.write(request);
        else socket.end(resolve);
      };
      socket.on('connect', next).on('error', reject);
      socket.on('data', (chunk: Buffer) => {
        pending += chunk.toString('latin1');
        for (let end = answerEnd(pending); end !== -1; end = answerEnd(pending)) {
          if (pending.slice(9, 10) !== '2') return reject(new Error(`answered ${pending.slice(9, 12)}`));
          pending = pending.slice(end);
          next();
        }
      });
    });
  return Promise.all(Array.from({ length: CONNECTIONS }, one)).then(() => {});
}

/** Where the first whole answer in `text` ends (Content-Length or chunked), or -1. */
function answerEnd(text: string): number {
  const head = text.indexOf('\r\n\r\n');
  if (head === -1) return -1;
  const headers = text.slice(0, head);
  if (/\r\ntransfer-encoding: chunked/i.test(headers)) {
    const last = text.indexOf('\r\n0\r\n\r\n', head);
    return last === -1 ? -1 : last + 7;
  }
  const length = Number(/\r\ncontent-length: (\d+)/i.exec(headers)?.[1] ?? 0);
  return text.length >= head + 4 + length ? head + 4 + length : -1;
}

/** The report's section: counts as ranges over the rounds, and each server's ratio to the minimal one. */
export function instructionSection(rows: readonly InstructionRow[]): string {
  if (rows.length === 0) return '';
  const lines = rows.flatMap(({ label, counts }) => {
    const base = counts.minimal ?? [];
    return Object.entries(counts).map(([name, values]) => {
      const ratio = name === 'minimal' ? '' : ratios(base, values);
      return `| ${label} | ${LABELS[name as ServerName]} | ${showSpread(spread(values), thousands)} | ${ratio} |`;
    });
  });
  return `## Instructions per request (callgrind)

Counted, not timed (bench/instructions.ts): each server under \`valgrind --tool=callgrind\`, warmed up with
${WARM_UP.toLocaleString('en')} requests, then its counters zeroed and ${COUNTED.toLocaleString('en')} requests counted over ${CONNECTIONS} keep-alive
connections. User-space instructions only: the kernel's share (the socket's read and write, the same for
every server), memory stalls and a saturated loop's batching are not in it, so it is a companion to the
timed figures above, not a replacement. It does not move with the machine's neighbours; it does move
with the JIT (which functions a start has optimised when the counting begins), so each server is started
anew every round and the figures are ranges.

| route | server | instructions / request (rounds) | the minimal server's count / this one's (rounds) |
|---|---|---:|---:|
${lines.join('\n')}
`;
}

const thousands = (v: number) => `${Math.round(v / 1000)}k`;

/** minimal / server, round by round, as a range and its median. */
function ratios(base: readonly number[], values: readonly number[]): string {
  const each = values.map((v, i) => (base[i] ?? Number.NaN) / v);
  return `${showSpread(spread(each), (v) => `${v.toFixed(2)}x`)} (median ${median(each).toFixed(2)}x)`;
}
