/**
 * The console's test set-up: the mock API (real entry point, with a Unix socket), the reference workflow
 * behind n8n's URLs (the acceptance runner's `--target reference` host), and the console (real entry
 * point) reaching the mock API through the socket only. Everything on loopback and in a temp folder;
 * stop() ends only what start() started.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { startWorkflowHost, type WorkflowHost } from '../../app/targets/workflow-host.js';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from '../helpers/chromium.js';
import { type ServiceProcess, spawnNode, startService } from '../helpers/service-process.js';

export interface ConsoleLab {
  dir: string;
  socketPath: string;
  api: ServiceProcess;
  host: WorkflowHost;
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
  const host = await startWorkflowHost({ mockApiUrl: api.url, settings: { approvalTimeoutMs: 120_000 } });
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

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/**
 * Debian's chromium (CHROMIUM, default /usr/bin/chromium) driven by playwright-core, headless with a
 * temp profile that close() removes; `args` adds flags (a host-resolver rule, say).
 */
export async function openChromium(args: string[] = []): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'soar-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [...CHROMIUM_FLAGS, ...args],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
