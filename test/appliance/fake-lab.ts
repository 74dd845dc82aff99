/**
 * A lab checkout of its own for the lab scripts' unit tests: docker/lab.sh and its parts copied into a
 * temporary folder (so reports/, saved/ and labs/ are written there, never into this checkout), and a
 * fake `docker` first on PATH (fake-docker.sh: its engine state in files, n8n's workflows one file each).
 * The lab named here runs: its settings file, its containers, its database and reports volumes.
 */
import { execFile } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { repoRoot } from './compose-policy.js';

const run = promisify(execFile);
const Failure = z.object({ code: z.number(), stdout: z.string(), stderr: z.string() });
export const bash =
  ['/bin/bash', '/usr/bin/bash', '/usr/local/bin/bash'].find((p) => existsSync(p)) ?? 'bash';
const repo = (path: string) => new URL(path, repoRoot).pathname;
/** Where docker/ and the Makefile are copied from: this checkout, or (FAKE_LAB_SOURCE=DIR) another tree, to
 * watch a test fail on the scripts as they were before a fix. */
export const scriptsRoot = process.env.FAKE_LAB_SOURCE ?? repo('.');

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

export interface FakeLab {
  /** The checkout's copy (ROOT and LAB_DIR of the scripts). */
  root: string;
  /** The fake engine's state (FAKE_STATE). */
  state: string;
  /** The lab's name (LAB), or '' for the single default lab. */
  name: string;
  /** The lab's reports volume, as a folder. */
  reportsVolume: string;
  /** The host's copies of the lab's reports (reports/<lab>/, or reports/ for the default lab). */
  hostReports: string;
  /** Runs docker/lab.sh ARGS in the copy, with the lab's LAB and the given environment. */
  lab(args: string[], env?: Record<string, string>): Promise<Ran>;
  /** Runs a function of docker/lab.sh's parts (test/appliance/lab-fn.sh) in the copy. */
  fn(args: string[], env?: Record<string, string>): Promise<Ran>;
  /** n8n's workflow of that id, as its database holds it. */
  workflow(id: string): { id: string; name: string } | undefined;
  putWorkflow(workflow: { id: string; name: string; active?: boolean }): void;
  /** n8n's credential of that id, as its database holds it (encrypted, as n8n keeps it). */
  credential(id: string): { id: string; name: string; data: string } | undefined;
  putCredential(credential: { id: string; name: string; data: string }): void;
  /** Runs docker/lab.sh ARGS as `lab`, in a process group of its own (setsid) that fake-docker.sh kills
   * at FAKE_KILL_AT: the signal that ended it, or its exit code. */
  labKilled(
    args: string[],
    env: Record<string, string>,
  ): Promise<{ code: number | null; signal: string | null }>;
  calls(): string[];
  remove(): void;
}

const WorkflowSchema = z.looseObject({ id: z.string(), name: z.string() });
const CredentialSchema = z.looseObject({ id: z.string(), name: z.string(), data: z.string() });
const Ended = z.object({ code: z.number().nullable(), signal: z.string().nullable() });

export function fakeLab(name = 'alice'): FakeLab {
  const root = mkdtempSync(join(tmpdir(), 'lab-fake-'));
  const state = join(root, '.fake');
  const bin = join(state, 'bin');
  mkdirSync(join(root, 'docker', 'lab'), { recursive: true });
  mkdirSync(bin, { recursive: true });
  copyFileSync(join(scriptsRoot, 'docker/lab.sh'), join(root, 'docker', 'lab.sh'));
  for (const part of readdirSync(join(scriptsRoot, 'docker/lab'))) {
    if (part.endsWith('.sh')) {
      copyFileSync(join(scriptsRoot, 'docker/lab', part), join(root, 'docker', 'lab', part));
    }
  }
  copyFileSync(repo('test/appliance/lab-fn.sh'), join(root, 'docker', 'lab-fn.sh'));
  for (const [tool, file] of [
    ['docker', 'fake-docker.sh'],
    ['n8n', 'fake-n8n.sh'],
    ['date', 'fake-date.sh'],
  ] as const) {
    copyFileSync(repo(`test/appliance/${file}`), join(bin, tool));
    chmodSync(join(bin, tool), 0o755);
  }
  const project = name === '' ? 'soar-lab' : `soar-lab-${name}`;
  const reportsVolume = join(state, 'volumes', `${project}_lab-reports`);
  mkdirSync(join(state, 'volumes', `${project}_postgres-data`), { recursive: true });
  mkdirSync(reportsVolume, { recursive: true });
  mkdirSync(join(state, 'n8n'));
  writeFileSync(join(state, 'running'), '');
  const envFile = name === '' ? join(root, '.env') : join(root, 'labs', `${name}.env`);
  mkdirSync(join(root, 'labs'), { recursive: true });
  writeFileSync(envFile, 'LAB_MODE=exercise\nCONSOLE_SECRET=0123456789abcdef01234567\n', { mode: 0o600 });

  const runEnv = (env: Record<string, string>) => ({
    PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: root,
    FAKE_STATE: state,
    LAB: name,
    ...env,
  });

  async function sh(script: string, args: string[], env: Record<string, string>): Promise<Ran> {
    try {
      // Under umask 022, as most trainers' shells are: what must be private is made so by the scripts.
      const r = await run(bash, ['-c', 'umask 022 && exec "$0" "$@"', bash, script, ...args], {
        env: runEnv(env),
        timeout: 20_000,
      });
      return { code: 0, stdout: r.stdout, stderr: r.stderr };
    } catch (err) {
      return Failure.parse(err);
    }
  }

  return {
    root,
    state,
    name,
    reportsVolume,
    hostReports: name === '' ? join(root, 'reports') : join(root, 'reports', name),
    lab: (args, env = {}) => sh(join(root, 'docker', 'lab.sh'), args, env),
    fn: (args, env = {}) => sh(join(root, 'docker', 'lab-fn.sh'), args, env),
    workflow(id) {
      const path = join(state, 'n8n', `${id}.json`);
      return existsSync(path) ? WorkflowSchema.parse(JSON.parse(readFileSync(path, 'utf8'))) : undefined;
    },
    putWorkflow(workflow) {
      const full = { nodes: [{ name: 'Webhook' }], pinData: {}, active: false, ...workflow };
      writeFileSync(join(state, 'n8n', `${workflow.id}.json`), JSON.stringify(full));
    },
    credential(id) {
      const path = join(state, 'n8n', 'credentials', `${id}.json`);
      return existsSync(path) ? CredentialSchema.parse(JSON.parse(readFileSync(path, 'utf8'))) : undefined;
    },
    putCredential(credential) {
      mkdirSync(join(state, 'n8n', 'credentials'), { recursive: true });
      const full = { type: 'httpHeaderAuth', ...credential };
      writeFileSync(join(state, 'n8n', 'credentials', `${credential.id}.json`), JSON.stringify(full));
    },
    async labKilled(args, env) {
      // setsid: the command leads a process group of its own, the only one fake-docker.sh kills.
      const script = 'echo $$ >"$FAKE_STATE/group" && umask 022 && exec "$0" "$@"';
      try {
        await run('setsid', ['-w', bash, '-c', script, bash, join(root, 'docker', 'lab.sh'), ...args], {
          env: runEnv(env),
          timeout: 20_000,
        });
        return { code: 0, signal: null };
      } catch (err) {
        return Ended.parse(err);
      }
    },
    calls: () =>
      existsSync(join(state, 'calls.log'))
        ? readFileSync(join(state, 'calls.log'), 'utf8').split('\n').filter(Boolean)
        : [],
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** The lines a command said (its stdout and stderr), without blank ones. */
export const said = (r: Ran) => `${r.stdout}${r.stderr}`.split('\n').filter((l) => l.trim() !== '');
