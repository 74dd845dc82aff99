/**
 * The two tables of who reaches whom that the offline proof compares: the compose lab's, derived from
 * compose.yaml's networks, and the cluster's, derived from the rendered NetworkPolicies (./netpol.ts),
 * both written per pod of the cluster and port, as "source -> destination:port/protocol".
 */
import { ComposeFile, parseYaml, readRepoFile } from '../appliance/compose-policy.js';
import { Cluster, type Endpoint, type Namespace, type NetworkPolicy } from './netpol.js';
import { type K8sObject, podTemplate, WORKLOAD_KINDS } from './render.js';

/** Where the class's ingress controller runs (render's default K8S_INGRESS_NAMESPACE), and its pods' label. */
export const INGRESS_NS = 'ingress-nginx';
export const INGRESS_LABELS = { 'app.kubernetes.io/name': 'ingress-nginx' };
/** Outside the cluster: what an allowed egress to the internet would reach. */
export const INTERNET: Endpoint = {
  id: 'internet',
  ip: '93.184.216.34',
  ports: [
    { port: 443, protocol: 'TCP' },
    { port: 53, protocol: 'UDP' },
  ],
};
/** Beside the lab in its own namespace: a pod nobody declared (a trainer's debugging pod, say). */
export const STRANGER = 'stranger';

const dns53 = [
  { port: 53, protocol: 'UDP' },
  { port: 53, protocol: 'TCP' },
];
/**
 * Where a cluster answers lookups, each as the pods see it (test/k8s/answers: a kind cluster's addresses):
 * kube-dns's pods, CoreDNS's pods under another label, NodeLocal DNSCache's address on the node, GKE's
 * Cloud DNS through the metadata server (which also serves credentials on 80), and the DNS Service's
 * address, which NodeLocal DNSCache answers on the node without translating it.
 */
export const DNS_SERVERS: Endpoint[] = [
  { id: 'dns/kube-dns', namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' }, ports: dns53 },
  {
    id: 'dns/coredns',
    namespace: 'kube-system',
    labels: { 'app.kubernetes.io/name': 'coredns' },
    ports: dns53,
  },
  { id: 'dns/nodelocal', ip: '169.254.20.10', ports: dns53 },
  { id: 'dns/cloud-dns', ip: '169.254.169.254', ports: [...dns53, { port: 80, protocol: 'TCP' }] },
  { id: 'dns/service', ip: '10.96.0.10', ports: dns53 },
];
/** The API server: its endpoint, and the `kubernetes` Service's address (the answers' kind cluster). */
export const API_SERVER: Endpoint[] = [
  { id: 'api-server/endpoint', ip: '172.18.0.2', ports: [{ port: 6443, protocol: 'TCP' }] },
  { id: 'api-server/service', ip: '10.96.0.1', ports: [{ port: 443, protocol: 'TCP' }] },
];

/** In compose.yaml, the host (the published ports) and the internet (a network that is not internal). */
const HOST = 'host';

/** The port each compose service listens on, read from its own settings in compose.yaml. */
function listenPort(name: string, env: Record<string, unknown>): number | undefined {
  const byName: Record<string, unknown> = {
    'mock-api': env.PORT,
    console: env.CONSOLE_PORT,
    n8n: env.N8N_PORT,
    'n8n-worker': env.QUEUE_HEALTH_CHECK_PORT,
    postgres: 5432, // the image's default: compose.yaml sets none
    redis: 6379,
  };
  const value = byName[name];
  return value === undefined ? undefined : Number(value);
}

export function composeFile(): ComposeFile {
  return ComposeFile.parse(parseYaml(readRepoFile('compose.yaml')));
}

/**
 * The compose lab's table, per cluster pod: a compose service s reaches t on t's port when they share a
 * network; the host reaches the published services; a service on a network that is not internal reaches
 * the internet. `podOf` maps each compose service to the pod that runs it in the cluster.
 */
export function composeTable(podOf: Record<string, string>): string[] {
  const file = composeFile();
  const nets = (s: string) => {
    const n = file.services[s]?.networks ?? [];
    return Array.isArray(n) ? n : Object.keys(n);
  };
  const internal = (net: string) => file.networks?.[net]?.internal === true;
  const rows = new Set<string>();
  const services = Object.keys(file.services);
  for (const s of services)
    for (const t of services) {
      const port = listenPort(t, (file.services[t]?.environment ?? {}) as Record<string, unknown>);
      if (s === t || port === undefined) continue;
      if (podOf[s] === podOf[t]) continue;
      if (nets(s).some((n) => nets(t).includes(n))) rows.add(`${podOf[s]} -> ${podOf[t]}:${port}/TCP`);
    }
  for (const s of services) {
    if (nets(s).some((n) => !internal(n)))
      for (const p of INTERNET.ports) rows.add(`${podOf[s]} -> internet:${p.port}/${p.protocol}`);
    if ((file.services[s]?.ports ?? []).length > 0) {
      const port = listenPort(s, (file.services[s]?.environment ?? {}) as Record<string, unknown>);
      rows.add(`${HOST} -> ${podOf[s]}:${port}/TCP`);
    }
  }
  return [...rows].sort();
}

/** The pods of one namespace of the rendered class, as endpoints (their labels and container ports). */
export function podsOf(objects: K8sObject[], namespace: string): (Endpoint & { containers: string[] })[] {
  return objects
    .filter((o) => WORKLOAD_KINDS.includes(o.kind) && o.metadata.namespace === namespace)
    .map((o) => {
      const { labels, spec } = podTemplate(o);
      const all = [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
      return {
        id: `${namespace}/${o.metadata.name}`,
        namespace,
        labels,
        containers: all.map((c: K8sObject) => c.name as string),
        ports: (spec.containers ?? []).flatMap((c: K8sObject) =>
          (c.ports ?? []).map((p: K8sObject) => ({
            port: p.containerPort,
            protocol: p.protocol ?? 'TCP',
            name: p.name,
          })),
        ),
      };
    });
}

export function policiesOf(objects: K8sObject[]): NetworkPolicy[] {
  return objects.filter((o) => o.kind === 'NetworkPolicy') as NetworkPolicy[];
}

/**
 * The world the cluster's table is taken in: the rendered namespaces and their pods, a stranger pod in
 * the first, the cluster's DNS servers and API server, the ingress controller (as `host`, the trainee's
 * way in) with another pod of its namespace, a pod with the controller's label in another namespace, a
 * pod of some other namespace, and the internet.
 */
export function world(objects: K8sObject[]) {
  const namespaces: Namespace[] = objects
    .filter((o) => o.kind === 'Namespace')
    .map((o) => ({ name: o.metadata.name, labels: o.metadata.labels ?? {} }));
  namespaces.push(
    { name: 'kube-system', labels: {} },
    { name: INGRESS_NS, labels: {} },
    { name: 'elsewhere', labels: {} },
  );
  const web = [{ port: 443, protocol: 'TCP' }];
  const endpoints: Endpoint[] = [
    ...DNS_SERVERS,
    ...API_SERVER,
    { id: 'host', namespace: INGRESS_NS, labels: INGRESS_LABELS, ports: web },
    { id: 'ingress-neighbour', namespace: INGRESS_NS, labels: { app: 'admission-webhook' }, ports: web },
    { id: 'lookalike', namespace: 'elsewhere', labels: INGRESS_LABELS, ports: web },
    { id: 'elsewhere', namespace: 'elsewhere', labels: {}, ports: [{ port: 8080, protocol: 'TCP' }] },
    INTERNET,
  ];
  const labNamespaces = namespaces.filter((n) => n.labels['soar-lab/trainee']).map((n) => n.name);
  for (const ns of labNamespaces) endpoints.push(...podsOf(objects, ns));
  const first = labNamespaces[0];
  if (first)
    endpoints.push({
      id: `${first}/${STRANGER}`,
      namespace: first,
      labels: { run: 'debug' },
      ports: [{ port: 8080, protocol: 'TCP' }],
    });
  return { namespaces, endpoints, labNamespaces };
}

export function clusterTable(objects: K8sObject[], policies = policiesOf(objects)): string[] {
  const { namespaces, endpoints } = world(objects);
  return new Cluster(namespaces, policies).table(endpoints);
}

/** One namespace's rows, with the namespace taken off its pods' names ("n8n -> postgres:5432/TCP"). */
export function rowsOf(table: string[], namespace: string): string[] {
  const own = `${namespace}/`;
  return table
    .filter((row) => {
      const [src, dst] = row.split(' -> ') as [string, string];
      return src.startsWith(own) || dst.startsWith(own);
    })
    .map((row) => row.replaceAll(own, ''));
}
