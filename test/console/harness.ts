/**
 * The console's test set-up: the mock API (real entry point, with a Unix socket), the guide's workflows
 * on the simulator behind n8n's URLs (the acceptance runner's `--target reference`), and the console
 * (real entry point) reaching the mock API through the socket only. Everything on loopback and in a
 * temp folder; stop() ends only what start() started. Also the console on its own (runConsole), its
 * controls posted as its page posts them, and what its guard refuses.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type SimulatorHost, startSimulatorHost } from '../../app/simulator/host.js';
import { guideWorkflowsUpTo } from '../../app/workflow/guide/state.js';
import { type ServiceProcess, spawnNode, startService } from '../helpers/service-process.js';

export interface ConsoleLab {
  dir: string;
  socketPath: string;
  api: ServiceProcess;
  host: SimulatorHost;
  console: ReturnType<typeof spawnNode>;
  consoleUrl: string;
  stop(): Promise<void>;
}

export async function waitForLine(proc: ReturnType<typeof spawnNode>, pattern: RegExp, ms = 15_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const match = pattern.exec(proc.stdout());
    if (match) return match;
    if (proc.child.exitCode !== null) throw new Error(`exited early: ${proc.stderr()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no ${pattern} within ${ms} ms: ${proc.stdout()} ${proc.stderr()}`);
}

/** The console run as its real entry point, on a free port, and the token its page carries. */
export interface RunningConsole {
  url: string;
  token: string;
  proc: ReturnType<typeof spawnNode>;
}

/** The console's entry point with CONSOLE_PORT=0 and `env`, once it listens (within `ms`), with its token. */
export async function runConsole(env: Record<string, string>, ms?: number): Promise<RunningConsole> {
  const proc = spawnNode('app/console/main.ts', [], { CONSOLE_PORT: '0', ...env });
  const [, url = ''] = await waitForLine(proc, /console listening on (http:\/\/\S+)/, ms);
  const token = ((await (await fetch(`${url}/api/session`)).json()) as { token: string }).token;
  return { url, token, proc };
}

/** Ends each console and waits for it to exit. */
export async function stopConsoles(consoles: readonly RunningConsole[]): Promise<void> {
  for (const c of consoles) {
    if (c.proc.child.exitCode === null) c.proc.child.kill('SIGTERM');
    await c.proc.exited;
  }
}

/** A POST to one of the console's controls as its page sends it (JSON, the token; `headers` over them); a string body as it is. */
export const postControl = (
  c: RunningConsole,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) =>
  fetch(`${c.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-console-token': c.token, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/**
 * What a control answers to what the console's guard refuses, each beside `valid` (a body it takes): a
 * wrong token, a body that is not JSON by its type, another origin, another site, and a body that is not
 * JSON at all. A control under the guard answers 403, 415, 403, 403 and 400, and does nothing.
 */
export async function guardAnswers(
  c: RunningConsole,
  path: string,
  valid: unknown,
): Promise<Record<string, number>> {
  const status = async (body: unknown, headers?: Record<string, string>) =>
    (await postControl(c, path, body, headers)).status;
  return {
    'a wrong token': await status(valid, { 'x-console-token': 'wrong' }),
    'text/plain': await status(valid, { 'content-type': 'text/plain' }),
    'another origin': await status(valid, { origin: 'http://evil.test' }),
    'another site': await status(valid, { 'sec-fetch-site': 'cross-site' }),
    'not JSON': await status('not json'),
  };
}

/** What guardAnswers gets from a control under the console's guard. */
export const GUARDED = {
  'a wrong token': 403,
  'text/plain': 415,
  'another origin': 403,
  'another site': 403,
  'not JSON': 400,
};

export async function startConsoleLab(env: Record<string, string> = {}): Promise<ConsoleLab> {
  const dir = mkdtempSync(join(tmpdir(), 'soar-console-'));
  const socketPath = join(dir, 'api.sock');
  // The workflow (like the lab's worker) uses TCP; the console gets the socket and an unreachable
  // MOCK_API_URL, so whatever it shows came through the socket.
  const api = await startService(['--port', '0'], {
    SOCKET_PATH: socketPath,
    ALLOWED_CLIENTS: '127.0.0.1/32',
  });
  await waitForLine(api, /listening on unix:/);
  const host = await startSimulatorHost({
    mockApiUrl: api.url,
    workflows: guideWorkflowsUpTo('rollback'),
    env: { APPROVAL_TIMEOUT_SECONDS: '120' },
  });
  const proc = spawnNode('app/console/main.ts', [], {
    CONSOLE_PORT: '0',
    MOCK_API_SOCKET: socketPath,
    MOCK_API_URL: 'http://192.0.2.1:9',
    N8N_URL: host.url,
    CHECK_REPORT: join(dir, 'check-last.json'),
    CONSOLE_POLL_MS: '250',
    ...env,
  });
  const [, consoleUrl = ''] = await waitForLine(proc, /console listening on (http:\/\/\S+)/);
  return {
    dir,
    socketPath,
    api,
    host,
    console: proc,
    consoleUrl,
    async stop() {
      await host.close();
      for (const p of [proc, api]) {
        if (p.child.exitCode === null) p.child.kill('SIGTERM');
        await p.exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
