/**
 * `make k8s-render` as a trainer runs it, into a folder of the test's own (LAB_DIR), against a stand-in
 * kubectl (test/k8s/bin/kubectl) that answers the cluster's questions from test/k8s/answers/, and the
 * rendered manifests parsed: every document, the pods of each namespace (their templates) and the policies.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { parseAllDocuments } from 'yaml';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The stand-in kubectl's folder, put first on PATH. */
export const STAND_IN_BIN = join(ROOT, 'test/k8s/bin');
/** A kind cluster's answers (API server 172.18.0.2:6443 behind 10.96.0.1:443, DNS 10.96.0.10). */
export const ANSWERS = join(ROOT, 'test/k8s/answers/new-cluster');
export const IMAGE = 'registry.example/soar-lab/mock-api:1.2.0';

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
  /** labs/k8s/class.yaml, '' when there is none. */
  manifests: string;
}

/**
 * Runs `make k8s-render ROSTER=... K8S_IMAGE=...`, the trainer's command, with LAB_DIR set and the
 * stand-in kubectl first on PATH (K8S_ANSWERS in `env` picks other answers); as a top-level make.
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
    env: {
      ...outer,
      PATH: `${STAND_IN_BIN}:${outer.PATH}`,
      K8S_ANSWERS: ANSWERS,
      K8S_IMAGE: IMAGE,
      LAB_DIR: dir,
      ...env,
    },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const out = join(dir, 'labs/k8s/class.yaml');
  const manifests = existsSync(out) ? readFileSync(out, 'utf8') : '';
  return { code: run.status ?? -1, stdout: run.stdout, stderr: run.stderr, labDir: dir, manifests };
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
