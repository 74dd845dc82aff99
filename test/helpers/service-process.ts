import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServiceProcess {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; atMs: number }>;
}

/**
 * Runs one of the project's TypeScript entry points (through tsx) as a real process, collecting its
 * output; `nodeArgs` [] runs a built JavaScript file as it is.
 */
export function spawnNode(
  script: string,
  args: string[] = [],
  env: Record<string, string> = {},
  nodeArgs: string[] = ['--import', 'tsx'],
) {
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    err += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; atMs: number }>(
    (resolve) => child.on('exit', (code, signal) => resolve({ code, signal, atMs: performance.now() })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Runs app/api/main.ts as the real entry point: argv, env, signals, stdout. */
export const spawnService = (args: string[] = [], env: Record<string, string> = {}) =>
  spawnNode('app/api/main.ts', args, env);

/** Starts the service and waits for its `listening on` line (or its exit). */
export async function startService(
  args: string[] = ['--port', '0'],
  env: Record<string, string> = {},
  start: typeof spawnService = spawnService,
): Promise<ServiceProcess> {
  const proc = start(args, env);
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const match = /listening on (http:\/\/\S+)/.exec(proc.stdout());
    if (match?.[1]) return { ...proc, url: match[1] };
    const exitedEarly = await Promise.race([
      proc.exited.then(() => true),
      new Promise((r) => setTimeout(() => r(false), 25)),
    ]);
    if (exitedEarly) throw new Error(`service exited: ${proc.stderr()}`);
  }
  proc.child.kill('SIGKILL');
  throw new Error(`service did not start: ${proc.stderr()}`);
}
