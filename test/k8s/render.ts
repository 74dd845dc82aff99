/**
 * `make k8s-render` as a trainer runs it, into a folder of the test's own (LAB_DIR), and the rendered
 * manifests parsed: every document, the pods of each namespace (their templates) and the policies.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { parseAllDocuments } from 'yaml';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The folders the renders of a test file made, removed after it. */
const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export interface Rendered {
  code: number;
  stdout: string;
  stderr: string;
  labDir: string;
}

/**
 * Runs `make k8s-render ROSTER=...`, the trainer's command, with LAB_DIR set; as a top-level make (under
 * `make test` a sub-make would print its directory lines into the manifests a trainer pipes on).
 */
export function render(
  roster: string,
  env: Record<string, string> = {},
  labDir?: string,
  args: string[] = [],
): Rendered {
  const dir = labDir ?? mkdtempSync(join(tmpdir(), 'k8s-render-'));
  made.push(dir);
  const rosterFile = join(dir, 'class.txt');
  writeFileSync(rosterFile, roster);
  const { MAKELEVEL: _level, MAKEFLAGS: _flags, MFLAGS: _mflags, ...outer } = process.env;
  const run = spawnSync('make', ['k8s-render', `ROSTER=${rosterFile}`, ...args], {
    cwd: ROOT,
    env: { ...outer, LAB_DIR: dir, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: run.status ?? -1, stdout: run.stdout, stderr: run.stderr, labDir: dir };
}

// biome-ignore lint/suspicious/noExplicitAny: rendered Kubernetes objects, checked by their own schemas
export type K8sObject = Record<string, any>;

export function documents(stdout: string): K8sObject[] {
  return parseAllDocuments(stdout).map((d) => {
    if (d.errors.length > 0) throw new Error(`not YAML: ${d.errors[0]?.message}`);
    return d.toJS() as K8sObject;
  });
}

export const WORKLOAD_KINDS = ['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob', 'Pod'];

/** A workload's pod template spec and labels. */
export function podTemplate(o: K8sObject): { labels: Record<string, string>; spec: K8sObject } {
  if (o.kind === 'Pod') return { labels: o.metadata?.labels ?? {}, spec: o.spec };
  if (o.kind === 'CronJob')
    return {
      labels: o.spec.jobTemplate.spec.template.metadata?.labels ?? {},
      spec: o.spec.jobTemplate.spec.template.spec,
    };
  return { labels: o.spec.template.metadata?.labels ?? {}, spec: o.spec.template.spec };
}
