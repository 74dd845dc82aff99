/**
 * The hardening every pod of the lab carries on Kubernetes (compose.yaml's, and the restricted Pod
 * Security Standard's): each function returns the violations it finds, so a test can show that a
 * deliberately broken manifest fails for its reason.
 */
import { type K8sObject, podTemplate, WORKLOAD_KINDS } from './render.js';

/** Every container of a pod template, init containers included. */
function containersOf(spec: K8sObject): K8sObject[] {
  return [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
}

/** The uid and gid a container runs as: its own securityContext over the pod's. */
export function runAs(pod: K8sObject, container: K8sObject): { uid?: number; gid?: number } {
  return {
    uid: container.securityContext?.runAsUser ?? pod.securityContext?.runAsUser,
    gid: container.securityContext?.runAsGroup ?? pod.securityContext?.runAsGroup,
  };
}

export function podViolations(o: K8sObject): string[] {
  const { spec } = podTemplate(o);
  const where = `${o.metadata?.namespace ?? ''}/${o.kind}/${o.metadata?.name}`;
  const out: string[] = [];
  const pod = spec.securityContext ?? {};
  if (spec.automountServiceAccountToken !== false)
    out.push(`${where}: automountServiceAccountToken is not false`);
  if (spec.hostNetwork || spec.hostPID || spec.hostIPC) out.push(`${where}: shares a host namespace`);
  for (const v of spec.volumes ?? []) if (v.hostPath) out.push(`${where}: volume ${v.name} is a hostPath`);
  for (const c of containersOf(spec)) {
    const at = `${where}/${c.name}`;
    const sc = c.securityContext ?? {};
    const nonRoot = sc.runAsNonRoot ?? pod.runAsNonRoot;
    const { uid } = runAs(spec, c);
    if (nonRoot !== true) out.push(`${at}: runAsNonRoot is not true`);
    if (uid === undefined || uid === 0) out.push(`${at}: no non-root runAsUser`);
    if (sc.readOnlyRootFilesystem !== true) out.push(`${at}: readOnlyRootFilesystem is not true`);
    if (sc.allowPrivilegeEscalation !== false) out.push(`${at}: allowPrivilegeEscalation is not false`);
    if (sc.privileged === true) out.push(`${at}: privileged`);
    const drop: string[] = sc.capabilities?.drop ?? [];
    if (!drop.includes('ALL')) out.push(`${at}: capabilities do not drop ALL`);
    if ((sc.capabilities?.add ?? []).length > 0) out.push(`${at}: adds capabilities`);
    const seccomp = sc.seccompProfile?.type ?? pod.seccompProfile?.type;
    if (seccomp !== 'RuntimeDefault') out.push(`${at}: seccomp profile is not RuntimeDefault`);
    for (const kind of ['requests', 'limits'])
      for (const res of ['cpu', 'memory'])
        if (c.resources?.[kind]?.[res] === undefined) out.push(`${at}: no ${res} ${kind.slice(0, -1)}`);
    for (const p of c.ports ?? []) if (p.hostPort !== undefined) out.push(`${at}: hostPort ${p.hostPort}`);
  }
  return out;
}

export function hardeningViolations(objects: K8sObject[]): string[] {
  return objects.filter((o) => WORKLOAD_KINDS.includes(o.kind)).flatMap(podViolations);
}

/** A Kubernetes quantity of memory in bytes: "256Mi", "1Gi" (binary), "1G" (decimal), "1000". */
export function k8sBytes(q: string | number): number {
  const m = /^(\d+)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(String(q));
  if (!m) throw new Error(`not a Kubernetes memory quantity: ${q}`);
  const factor: Record<string, number> = {
    '': 1,
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
  };
  return Number(m[1]) * (factor[m[2] ?? ''] as number);
}

/** compose's mem_limit in bytes: "256m", "1g" (Docker's units are powers of 1024). */
export function composeBytes(q: string | number): number {
  const m = /^(\d+)([bkmg])?$/i.exec(String(q));
  if (!m) throw new Error(`not a compose memory size: ${q}`);
  return Number(m[1]) * 1024 ** ['b', 'k', 'm', 'g'].indexOf((m[2] ?? 'b').toLowerCase());
}

/** The Pod Security Standard's version every lab namespace pins (deploy/kubernetes/overlay.sh). */
export const PSS_VERSION = 'v1.34';

/** What a lab namespace's Pod Security labels lack: restricted enforced, warned and audited, each pinned. */
export function podSecurityViolations(labels: Record<string, string>): string[] {
  const out: string[] = [];
  for (const mode of ['enforce', 'warn', 'audit']) {
    const key = `pod-security.kubernetes.io/${mode}`;
    if (labels[key] !== 'restricted') out.push(`${key} is not restricted`);
    if (labels[`${key}-version`] !== PSS_VERSION) out.push(`${key}-version is not ${PSS_VERSION}`);
  }
  return out;
}

/** A workload's init containers' names. */
export function initContainerNames(o: K8sObject): string[] {
  return (podTemplate(o).spec.initContainers ?? []).map((c: K8sObject) => c.name as string);
}
