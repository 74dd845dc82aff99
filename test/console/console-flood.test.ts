/**
 * The console as a lab runs it (its own process, the editor gate inside it) under the trainee's flood:
 * one client (127.0.0.1) opens and holds 10,000 connections to the gate, half silent and half with half a
 * request head, while a second client (127.0.0.2) keeps using both the console's controls (its own port)
 * and n8n through the gate: every request answered, and every held connection closed within the limits
 * the console was given. The control is the same console without a per-client cap (the whole cap for one
 * client): the flood then takes every place of the gate, and the second client's n8n is refused.
 */
import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnNode } from '../helpers/service-process.js';
import { closeAll, flood, floodFits, listening, request, sleep } from './gate-harness.js';

const FLOOD = 10_000;
/** The console's gate settings for the test: the shortest whole seconds its settings take. */
const GATE = {
  EDITOR_GATE_MAX_CONNECTIONS: '60',
  EDITOR_GATE_MAX_PER_CLIENT: '30',
  EDITOR_GATE_FIRST_BYTE_SECONDS: '1',
  EDITOR_GATE_IDLE_SECONDS: '3',
  EDITOR_GATE_END_GRACE_SECONDS: '1',
};
const consoles: ReturnType<typeof spawnNode>[] = [];

afterEach(async () => {
  for (const c of consoles.splice(0)) {
    c.child.kill('SIGTERM');
    await c.exited;
  }
  await closeAll();
});

const skip = !floodFits(FLOOD, 'console flood');

/** A port free now on 127.0.0.1 (the console is told its ports; it prints them as given). */
async function freePort(): Promise<number> {
  const probe = await listening(createNetServer());
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return probe.port;
}

/** The console with its gate in front of an n8n stand-in that answers `ok`; its two ports. */
async function startConsole(gate: Record<string, string>) {
  const n8n = await listening(createHttpServer((_req, res) => res.end('ok')));
  const consolePort = await freePort();
  const gatePort = await freePort();
  const proc = spawnNode('app/console/main.ts', [], {
    CONSOLE_PORT: String(consolePort),
    EDITOR_GATE_PORT: String(gatePort),
    N8N_URL: `http://127.0.0.1:${n8n.port}`,
    MOCK_API_SOCKET: '/nonexistent/mock-api.sock',
    N8N_ALLOWED_SUBNET: '127.0.0.0/8',
    ...gate,
  });
  consoles.push(proc);
  await expect.poll(() => proc.stdout(), { timeout: 20_000 }).toMatch(/editor gate listening/);
  await expect.poll(() => proc.stdout(), { timeout: 20_000 }).toMatch(/console listening/);
  return { consolePort, gatePort, proc };
}

/** The flood, with the second client asking the console and n8n (through the gate) every 50 ms. */
async function scenario(gate: Record<string, string>) {
  const { consolePort, gatePort } = await startConsole(gate);
  const answers = { console: { ok: 0, refused: 0 }, n8n: { ok: 0, refused: 0 } };
  const asked: Promise<void>[] = [];
  const count = (tally: { ok: number; refused: number }) => (ok: boolean) =>
    void (ok ? tally.ok++ : tally.refused++);
  const asking = setInterval(() => {
    asked.push(request(consolePort, '/api/session', null).then(count(answers.console)));
    asked.push(request(gatePort, '/rest/settings').then(count(answers.n8n)));
  }, 50);
  const clients = await flood(gatePort, FLOOD);
  clearInterval(asking);
  await Promise.all(asked);
  // Every held connection's limit (the idle one, the longest), and a second's slack for timers.
  await sleep(Number(gate.EDITOR_GATE_IDLE_SECONDS ?? 3) * 1000 + 1000);
  const open = clients.filter((c) => c.endedAt === null).length;
  return { answers, clients, open };
}

describe.skipIf(skip)(`the console under a flood of ${FLOOD} connections to its editor gate`, () => {
  it("answers its controls and the other client's n8n throughout, and closes every held connection", async () => {
    const { answers, clients, open } = await scenario(GATE);
    expect(clients.filter((c) => c.connectedAt !== null).length).toBe(FLOOD);
    expect(answers.console.refused).toBe(0);
    expect(answers.console.ok).toBeGreaterThanOrEqual(5);
    expect(answers.n8n.refused).toBe(0);
    expect(answers.n8n.ok).toBeGreaterThanOrEqual(5);
    expect(open).toBe(0);
  }, 120_000);

  it("control: with one client's cap the whole cap, the flood takes the gate and the other client's n8n is refused", async () => {
    const { answers } = await scenario({
      ...GATE,
      EDITOR_GATE_MAX_PER_CLIENT: GATE.EDITOR_GATE_MAX_CONNECTIONS,
    });
    expect(answers.n8n.refused).toBeGreaterThan(0);
  }, 120_000);
});
