/**
 * The Kubernetes lab's set-up (the init container of the mock API's pod, deploy/kubernetes/base/
 * mock-api.yaml), on every start of the pod: waits until n8n main is ready, makes or finds the owner (the
 * lab's login), keeps the key in the key file when n8n still accepts it or writes a new one there (the
 * console reads it: a file only this pod mounts), and in demo mode publishes the reference workflows. A
 * refused publish (a trainee's workflow holds the path) is said, and the lab starts all the same.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { ClientOptions, Owner } from './client.js';
import { setupLab } from './setup.js';
import { importSolution, readReferences, SolutionRefused } from './solution.js';

export interface InitOptions {
  n8n: ClientOptions;
  owner: Owner;
  keyFile: string;
  demo: boolean;
  /** The reference workflows' files for demo mode (default: every *.json in /lab/workflows). */
  workflows?: string[];
  /** How long to wait for n8n's readiness, and how often to ask. */
  waitMs: number;
  pollMs: number;
  /** One line per outcome, as it happens. */
  say: (line: string) => void;
}

async function ready(url: string): Promise<boolean> {
  try {
    const res = await fetch(new URL('/healthz/readiness', url), { signal: AbortSignal.timeout(3000) });
    return res.ok;
  } catch {
    return false;
  }
}

export async function waitForN8n(url: string, waitMs: number, pollMs: number): Promise<void> {
  const until = Date.now() + waitMs;
  while (!(await ready(url))) {
    if (Date.now() >= until)
      throw new Error(`n8n at ${url} was not ready within ${Math.round(waitMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

export async function initLab(opts: InitOptions): Promise<void> {
  await waitForN8n(opts.n8n.url, opts.waitMs, opts.pollMs);
  const held = existsSync(opts.keyFile) ? readFileSync(opts.keyFile, 'utf8').trim() : '';
  const result = await setupLab(opts.n8n, opts.owner, held || undefined);
  opts.say(`owner ${result.owner}`);
  const key = result.key.kept ? held : result.key.raw;
  if (result.key.kept) opts.say(`api key kept in ${opts.keyFile}`);
  else {
    writeFileSync(opts.keyFile, key, { mode: 0o600 });
    opts.say(`api key written to ${opts.keyFile}`);
  }
  if (!opts.demo) return;
  try {
    for (const line of await importSolution(opts.n8n, key, readReferences(opts.workflows ?? [])))
      opts.say(line);
  } catch (err) {
    if (!(err instanceof SolutionRefused)) throw err;
    opts.say(`the reference workflows were not published: ${err.message}`);
  }
}
