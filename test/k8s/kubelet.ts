/**
 * What the kubelet gives a container of a rendered pod as its environment, offline: the service links of
 * the namespace's Services (when the pod has enableServiceLinks), the `envFrom` ConfigMaps, then each `env`
 * entry in order, a `value` with its `$(NAME)` references expanded. The rules are the kubelet's own
 * (kubernetes/pkg/kubelet/kubelet_pods.go, makeEnvironmentVariables and getServiceEnvVarMap;
 * pkg/kubelet/envvars, FromServices; third_party/forked/golang/expansion), as the Kubernetes documentation
 * gives them ("Define Dependent Environment Variables"; "Service", "Environment variables"):
 * - a Service with a cluster address gives `<NAME>_SERVICE_HOST`, `<NAME>_SERVICE_PORT`,
 *   `<NAME>_SERVICE_PORT_<PORT NAME>` and Docker's link variables (`<NAME>_PORT=tcp://ip:port`, ...), its
 *   name upper-cased with `-` as `_`; only the Services of the pod's own namespace, and only with
 *   enableServiceLinks (the `kubernetes` Service of `default` always, which the lab does not use);
 * - `$(NAME)` is replaced by a variable set earlier (`envFrom`, an earlier `env`) or a service link; a
 *   reference to nothing known stays as it is, and `$$` is a `$`;
 * - a variable the container sets wins over a service link of the same name.
 */
import type { K8sObject } from './render.js';

/** A Service as the API server has it after creation: the render's, with the address it was given. */
export interface LiveService {
  name: string;
  clusterIP: string;
  ports: { name?: string; port: number; protocol?: string }[];
}

const envName = (name: string) => name.toUpperCase().replaceAll('-', '_');

/** The service links of some Services (FromServices). */
export function serviceLinks(services: readonly LiveService[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of services) {
    if (s.clusterIP === '' || s.clusterIP === 'None') continue;
    const prefix = envName(s.name);
    out[`${prefix}_SERVICE_HOST`] = s.clusterIP;
    out[`${prefix}_SERVICE_PORT`] = String(s.ports[0]?.port);
    for (const p of s.ports) if (p.name) out[`${prefix}_SERVICE_PORT_${envName(p.name)}`] = String(p.port);
    s.ports.forEach((p, i) => {
      const proto = (p.protocol ?? 'TCP').toLowerCase();
      const hostPort = s.clusterIP.includes(':') ? `[${s.clusterIP}]:${p.port}` : `${s.clusterIP}:${p.port}`;
      if (i === 0) out[`${prefix}_PORT`] = `${proto}://${hostPort}`;
      const at = `${prefix}_PORT_${p.port}_${proto.toUpperCase()}`;
      out[at] = `${proto}://${hostPort}`;
      out[`${at}_PROTO`] = proto;
      out[`${at}_PORT`] = String(p.port);
      out[`${at}_ADDR`] = s.clusterIP;
    });
  }
  return out;
}

/** `$(NAME)` references expanded from the maps, the first that has the name; `$$` is `$`. */
export function expand(text: string, ...maps: Record<string, string>[]): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== '$' || i + 1 >= text.length) {
      out += c;
      continue;
    }
    const next = text[i + 1];
    if (next === '$') {
      out += '$';
      i++;
    } else if (next === '(') {
      const close = text.indexOf(')', i + 2);
      if (close === -1) {
        out += text.slice(i);
        break;
      }
      const name = text.slice(i + 2, close);
      const found = maps.find((m) => Object.hasOwn(m, name));
      out += found ? found[name] : `$(${name})`;
      i = close;
    } else out += c;
  }
  return out;
}

/** The namespace's Services of the rendered class, each with an address of the test's choosing. */
export function liveServices(
  objects: readonly K8sObject[],
  namespace: string,
  addresses: Record<string, string>,
): LiveService[] {
  return objects
    .filter((o) => o.kind === 'Service' && o.metadata.namespace === namespace)
    .map((o) => ({
      name: o.metadata.name,
      clusterIP: o.spec.clusterIP ?? addresses[o.metadata.name] ?? '',
      ports: o.spec.ports.map((p: K8sObject) => ({ name: p.name, port: p.port, protocol: p.protocol })),
    }));
}

/**
 * A container's environment as the kubelet starts it, in a pod of `namespace` whose Services are
 * `services` (those the kubelet knows of when it starts the container). ConfigMaps and Secrets are the
 * rendered ones of the namespace; a Secret's value is given as `<secret:NAME/KEY>`, a field's as
 * `<field:PATH>`.
 */
export function containerEnv(
  objects: readonly K8sObject[],
  namespace: string,
  pod: K8sObject,
  container: K8sObject,
  services: readonly LiveService[],
): Record<string, string> {
  const links = pod.enableServiceLinks === false ? {} : serviceLinks(services);
  const configMap = (name: string): Record<string, string> =>
    objects.find(
      (o) => o.kind === 'ConfigMap' && o.metadata.namespace === namespace && o.metadata.name === name,
    )?.data ?? {};
  const own: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    if (from.configMapRef) Object.assign(own, configMap(from.configMapRef.name));
    if (from.secretRef) {
      const secret = objects.find(
        (o) =>
          o.kind === 'Secret' &&
          o.metadata.namespace === namespace &&
          o.metadata.name === from.secretRef.name,
      );
      for (const key of Object.keys(secret?.data ?? {})) own[key] = `<secret:${from.secretRef.name}/${key}>`;
    }
  }
  for (const e of container.env ?? []) {
    if (e.value !== undefined && e.value !== '') own[e.name] = expand(e.value, own, links);
    else if (e.valueFrom?.configMapKeyRef) {
      const ref = e.valueFrom.configMapKeyRef;
      const value = configMap(ref.name)[ref.key];
      if (value !== undefined) own[e.name] = value;
    } else if (e.valueFrom?.secretKeyRef) {
      const ref = e.valueFrom.secretKeyRef;
      own[e.name] = `<secret:${ref.name}/${ref.key}>`;
    } else if (e.valueFrom?.fieldRef) own[e.name] = `<field:${e.valueFrom.fieldRef.fieldPath}>`;
    else own[e.name] = '';
  }
  return { ...links, ...own };
}

/** A container's command and arguments, with `$(NAME)` expanded from its environment (the kubelet's rule). */
export function containerCommand(container: K8sObject, env: Record<string, string>): string[] {
  return [...(container.command ?? []), ...(container.args ?? [])].map((a: string) => expand(a, env));
}
