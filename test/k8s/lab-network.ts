/**
 * The two tables of who reaches whom that the offline proof compares: the compose lab's, derived from
 * compose.yaml's networks, published ports, editor gate and refused clients, and the cluster's, derived
 * from the rendered NetworkPolicies (./netpol.ts), both written per pod of the cluster and port, as
 * "source -> destination:port/protocol".
 */
import { ComposeFile, parseYaml, readRepoFile } from '../appliance/compose-policy.js';
import { Cluster, type Endpoint, inCidr, type Namespace, type NetworkPolicy } from './netpol.js';
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

type ComposeService = ComposeFile['services'][string];

/** A service's environment as compose gives it to the process (either of compose's two forms). */
function environmentOf(service: ComposeService | undefined): Record<string, string> {
  const env = service?.environment ?? {};
  const pairs = Array.isArray(env)
    ? env.map((e) => (e.includes('=') ? [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)] : [e, '']))
    : Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]);
  return Object.fromEntries(pairs);
}

/** The port each compose service's own server listens on, read from its own settings in compose.yaml. */
function listenPort(name: string, env: Record<string, string>): number | undefined {
  const byName: Record<string, unknown> = {
    'mock-api': env.PORT,
    console: env.CONSOLE_PORT,
    n8n: env.N8N_PORT,
    postgres: 5432, // the image's default: compose.yaml sets none
  };
  const value = byName[name];
  return value === undefined ? undefined : Number(value);
}

export function composeFile(text = readRepoFile('compose.yaml')): ComposeFile {
  return ComposeFile.parse(parseYaml(text));
}

/** The container port of one entry of a service's `ports:` (compose's short or long form). */
function containerPort(entry: unknown): number {
  if (typeof entry === 'object' && entry !== null && 'target' in entry) return Number(entry.target);
  const text = String(entry).replace(/\/(tcp|udp)$/, '');
  return Number(text.slice(text.lastIndexOf(':') + 1));
}

/** A block of addresses inside another ("172.30.66.192/26" inside "172.30.66.0/24"). */
function within(inner: string, outer: string): boolean {
  const [base, bits] = inner.split('/') as [string, string];
  return Number(bits) >= Number(outer.split('/')[1]) && inCidr(base, outer);
}

/**
 * The compose lab's table, per cluster pod, from compose.yaml's text (the repository's unless given):
 * - a compose service s reaches t on t's port when they share a network, unless t refuses that network:
 *   CONSOLE_REFUSED_CLIENTS in t's environment lists address blocks it answers nobody from, on every port
 *   it has, and a network whose subnet (`ipam.config[0].subnet`) lies in one of them is refused;
 * - an editor gate: a service whose environment has EDITOR_GATE_PORT passes that port through to the
 *   host and port of its N8N_URL, so whoever reaches the gate reaches that service, when the gate itself
 *   reaches it;
 * - the host reaches the published ports (a gate's, the service behind it), unless the service refuses
 *   its network that is not internal (Docker publishes from those only);
 * - a service on a network that is not internal reaches the internet.
 * `podOf` maps each compose service to the pod that runs it in the cluster; a path within one pod is no
 * row (the cluster's policies see none).
 */
export function composeTable(podOf: Record<string, string>, text?: string): string[] {
  const file = composeFile(text);
  const services = Object.keys(file.services);
  const nets = (s: string) => {
    const n = file.services[s]?.networks ?? [];
    return Array.isArray(n) ? n : Object.keys(n);
  };
  const network = (n: string) =>
    file.networks?.[n] as
      | { internal?: boolean; ipam?: { config?: { subnet?: string }[] } }
      | null
      | undefined;
  const internal = (n: string) => network(n)?.internal === true;
  const env = (s: string) => environmentOf(file.services[s]);
  const refuses = (t: string, n: string) => {
    const subnet = network(n)?.ipam?.config?.[0]?.subnet;
    const refused = (env(t).CONSOLE_REFUSED_CLIENTS ?? '').split(',').map((c) => c.trim());
    return subnet !== undefined && refused.some((block) => block !== '' && within(subnet, block));
  };
  /** s opens a connection to t: a network they share that t does not refuse. */
  const reaches = (s: string, t: string) => nets(s).some((n) => nets(t).includes(n) && !refuses(t, n));
  /** What a connection to t's port arrives at: t's own server, or its gate's service; none when nothing. */
  const arrival = (t: string, port: number): [string, number] | undefined => {
    const gate = env(t).EDITOR_GATE_PORT;
    if (gate !== undefined && Number(gate) === port) {
      const url = new URL(env(t).N8N_URL ?? '');
      const to = url.hostname;
      const toPort = Number(url.port || 80);
      if (!services.includes(to)) throw new Error(`${t}'s editor gate passes through to ${to}, no service`);
      if (listenPort(to, env(to)) !== toPort)
        throw new Error(`${t}'s editor gate: ${to} is not on ${toPort}`);
      return reaches(t, to) ? [to, toPort] : undefined;
    }
    return listenPort(t, env(t)) === port ? [t, port] : undefined;
  };
  const portsOf = (t: string) =>
    [listenPort(t, env(t)), env(t).EDITOR_GATE_PORT].filter((p) => p !== undefined).map(Number);
  const rows = new Set<string>();
  const add = (src: string, to: [string, number] | undefined) => {
    if (to && src !== podOf[to[0]]) rows.add(`${src} -> ${podOf[to[0]]}:${to[1]}/TCP`);
  };
  for (const s of services)
    for (const t of services)
      if (s !== t && reaches(s, t)) for (const port of portsOf(t)) add(podOf[s] as string, arrival(t, port));
  for (const s of services) {
    if (nets(s).some((n) => !internal(n)))
      for (const p of INTERNET.ports) rows.add(`${podOf[s]} -> internet:${p.port}/${p.protocol}`);
    const published = file.services[s]?.ports ?? [];
    if (published.length === 0) continue;
    if (nets(s).some((n) => !internal(n) && refuses(s, n))) continue;
    for (const entry of published) {
      const port = containerPort(entry);
      if (!portsOf(s).includes(port)) throw new Error(`${s} publishes ${port}, where nothing listens`);
      add(HOST, arrival(s, port));
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
