/**
 * The seed's promise, proven without a Docker engine: the mock API (the real entry point, app/api/main.ts)
 * in an "api" network namespace is reached by the "worker" on the internal bridge, never from the
 * "outside", and has no egress. The lab console (app/console/main.ts) in its own namespace on the
 * outside bridge cannot reach the mock API's port, yet serves its state through the Unix socket. A leak control (the api also on the outside bridge) must break the
 * promise, or the probes would prove nothing. Skipped, with the reason, where namespaces cannot be made.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  API_ADDRESS,
  API_LEAK_ADDRESS,
  API_PORT,
  LabNetwork,
  OUTSIDE_ADDRESS,
  OUTSIDE_PORT,
  skipReason,
} from './lab-network.js';

const reason = skipReason();
const api = `http://${API_ADDRESS}:${API_PORT}/health`;
const outsideServer = `http://${OUTSIDE_ADDRESS}:${OUTSIDE_PORT}/`;

interface Isolation {
  workerReachesApi: boolean;
  outsideReachesApi: boolean;
  outsideReachesLeakAddress: boolean;
  apiReachesOutside: boolean;
  apiHasDefaultRoute: boolean;
  consoleReachesApi: boolean;
  consoleReachesLeakAddress: boolean;
  /** The console's own /api/state in its namespace: the mock API's state, fetched through the socket. */
  consoleServesState: boolean;
}

/** What the lab promises, as violations (empty: isolated). */
function violations(i: Isolation): string[] {
  const out: string[] = [];
  if (!i.workerReachesApi) out.push('the worker cannot reach the mock API');
  if (i.outsideReachesApi || i.outsideReachesLeakAddress) out.push('the outside reaches the mock API');
  if (i.apiReachesOutside || i.apiHasDefaultRoute) out.push('the mock API has egress');
  if (i.consoleReachesApi || i.consoleReachesLeakAddress) out.push("the console reaches the mock API's port");
  if (!i.consoleServesState) out.push('the console does not serve the state through the socket');
  return out;
}

describe.skipIf(reason !== null)(
  `network isolation in namespaces${reason ? ` (skipped: ${reason})` : ''}`,
  () => {
    const net = new LabNetwork();
    const { api: apiNs, worker, outside, console: consoleNs } = net.names;
    // Unix sockets live in the file system, not in a network namespace: the shared volume's stand-in.
    const dir = mkdtempSync(join(tmpdir(), 'soar-netns-'));
    const socketPath = join(dir, 'api.sock');

    async function consoleServesState(): Promise<boolean> {
      const body = await net.read(consoleNs, 'http://127.0.0.1:8088/api/state');
      if (body === null) return false;
      const view = JSON.parse(body) as { error: string | null; source: string; state: unknown };
      return view.error === null && view.source === `unix:${socketPath}` && view.state !== null;
    }

    async function measure(): Promise<Isolation> {
      return {
        workerReachesApi: await net.reaches(worker, api),
        outsideReachesApi: await net.reaches(outside, api),
        outsideReachesLeakAddress: await net.reaches(
          outside,
          `http://${API_LEAK_ADDRESS}:${API_PORT}/health`,
        ),
        apiReachesOutside: await net.reaches(apiNs, outsideServer),
        apiHasDefaultRoute: await net.hasDefaultRoute(apiNs),
        consoleReachesApi: await net.reaches(consoleNs, api),
        consoleReachesLeakAddress: await net.reaches(
          consoleNs,
          `http://${API_LEAK_ADDRESS}:${API_PORT}/health`,
        ),
        consoleServesState: await consoleServesState(),
      };
    }

    beforeAll(async () => {
      await net.create();
      // The service binds every address of its namespace, as in the container (HOST=0.0.0.0).
      await net.start(
        apiNs,
        [process.execPath, '--import', 'tsx', 'app/api/main.ts'],
        { HOST: '0.0.0.0', PORT: String(API_PORT), ALLOWED_HOSTS: 'mock-api', SOCKET_PATH: socketPath },
        /listening on unix:/,
      );
      await net.start(
        consoleNs,
        [process.execPath, '--import', 'tsx', 'app/console/main.ts'],
        {
          CONSOLE_HOST: '127.0.0.1',
          CONSOLE_PORT: '8088',
          MOCK_API_SOCKET: socketPath,
          CONSOLE_POLL_MS: '200',
        },
        /console listening on /,
      );
      await net.start(
        outside,
        [
          process.execPath,
          '-e',
          `require('http').createServer((q,s)=>s.end('outside')).listen(${OUTSIDE_PORT},'${OUTSIDE_ADDRESS}',()=>console.log('ready'))`,
        ],
        {},
        /ready/,
      );
    }, 40_000);

    afterAll(() => {
      net.destroySync();
      rmSync(dir, { recursive: true, force: true });
    });

    it('control: the outside server answers inside its own namespace', async () => {
      expect(await net.reaches(outside, outsideServer)).toBe(true);
    });

    it('the worker reaches the mock API; the outside and the console do not (the console uses the socket); no egress', async () => {
      const isolation = await measure();
      expect(isolation).toEqual({
        workerReachesApi: true,
        outsideReachesApi: false,
        outsideReachesLeakAddress: false,
        apiReachesOutside: false,
        apiHasDefaultRoute: false,
        consoleReachesApi: false,
        consoleReachesLeakAddress: false,
        consoleServesState: true,
      });
      expect(violations(isolation)).toEqual([]);
    }, 30_000);

    it('leak control: the api also on the outside bridge makes the isolation check fail', async () => {
      await net.leakApiToOutside();
      const isolation = await measure();
      expect(isolation.outsideReachesLeakAddress).toBe(true);
      expect(isolation.apiReachesOutside).toBe(true);
      expect(isolation.consoleReachesLeakAddress).toBe(true);
      expect(violations(isolation)).toEqual([
        'the outside reaches the mock API',
        'the mock API has egress',
        "the console reaches the mock API's port",
      ]);
    }, 30_000);
  },
);
