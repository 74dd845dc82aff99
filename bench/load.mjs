#!/usr/bin/env node
/**
 * The load generator, run as its own process: N keep-alive connections, each sending one request at a
 * time (no pipelining) as fast as answers come back, for a warm-up and then a measured window. Requests
 * are prebuilt bytes, responses are framed by Content-Length, latency is taken per request with
 * hrtime. Prints one JSON line: requests, req/s, p50/p99/max in ms, status counts, errors.
 *
 * Usage: node bench/load.mjs '{"port":8081,"route":"health","connections":32,"warmupMs":1000,"durationMs":5000}'
 */
import { connect } from 'node:net';
import { caseRecord } from './fixtures.mjs';

const opts = JSON.parse(process.argv[2] ?? '{}');
const { port, route, connections = 32, warmupMs = 1000, durationMs = 5000 } = opts;

const HOST = 'Host: 127.0.0.1\r\n';
const get = (path) => Buffer.from(`GET ${path} HTTP/1.1\r\n${HOST}\r\n`);
const del = (path) => Buffer.from(`DELETE ${path} HTTP/1.1\r\n${HOST}\r\n`);
const post = (path, value) => {
  const body = JSON.stringify(value);
  return Buffer.from(
    `POST ${path} HTTP/1.1\r\n${HOST}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
};

/** Each connection's request cycle for a route. Every connection writes its own cases (no contention). */
const ROUTES = {
  health: () => [get('/health')],
  identity: () => [get('/identity/lab-admin')],
  cases: (c) => Array.from({ length: 15 }, (_, i) => post('/cases', caseRecord(`bench-${c}-${i}`))),
  blocklist: (c) => [
    post('/blocklist', { ip: '203.0.113.66', event_id: `bench-${c}`, expires_minutes: 30 }),
    del('/blocklist/203.0.113.66'),
  ],
  state: () => [get('/state')],
};

const cycleFor = ROUTES[route];
if (!cycleFor || !port) {
  process.stderr.write(`usage: load.mjs '{"port":..., "route": one of ${Object.keys(ROUTES).join(', ')}}'\n`);
  process.exit(2);
}

const latenciesUs = [];
const statuses = {};
let errors = 0;
let total = 0;
let recording = false;
let stopped = false;

function runConnection(index) {
  return new Promise((resolve) => {
    const cycle = cycleFor(index);
    let next = 0;
    let buffer = Buffer.alloc(0);
    let sentAt = 0n;
    const socket = connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    const send = () => {
      if (stopped) {
        socket.end();
        return;
      }
      const req = cycle[next];
      next = (next + 1) % cycle.length;
      sentAt = process.hrtime.bigint();
      socket.write(req);
    };
    socket.on('connect', send);
    socket.on('data', (chunk) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      for (;;) {
        const headEnd = buffer.indexOf('\r\n\r\n');
        if (headEnd === -1) return;
        const head = buffer.toString('latin1', 0, headEnd);
        const match = /\r\ncontent-length: *(\d+)/i.exec(head);
        const length = match ? Number(match[1]) : 0;
        if (buffer.length < headEnd + 4 + length) return;
        buffer = buffer.subarray(headEnd + 4 + length);
        total++;
        if (recording) {
          latenciesUs.push(Number(process.hrtime.bigint() - sentAt) / 1000);
          const status = head.slice(9, 12);
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
        send();
      }
    });
    socket.on('error', () => {
      errors++;
    });
    socket.on('close', () => resolve());
  });
}

const running = Array.from({ length: connections }, (_, i) => runConnection(i));
await new Promise((r) => setTimeout(r, warmupMs));
recording = true;
const t0 = performance.now();
await new Promise((r) => setTimeout(r, durationMs));
recording = false;
const elapsed = (performance.now() - t0) / 1000;
stopped = true;
await Promise.race([Promise.all(running), new Promise((r) => setTimeout(r, 2000))]);

latenciesUs.sort((a, b) => a - b);
const pct = (p) =>
  latenciesUs.length
    ? latenciesUs[Math.min(latenciesUs.length - 1, Math.floor(p * latenciesUs.length))] / 1000
    : NaN;
process.stdout.write(
  `${JSON.stringify({
    route,
    connections,
    requests: latenciesUs.length,
    rps: latenciesUs.length / elapsed,
    p50: pct(0.5),
    p99: pct(0.99),
    max: latenciesUs.length ? latenciesUs[latenciesUs.length - 1] / 1000 : NaN,
    statuses,
    errors,
    total,
  })}\n`,
);
process.exit(0);
