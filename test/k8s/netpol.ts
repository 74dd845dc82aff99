/**
 * Kubernetes NetworkPolicy (networking.k8s.io/v1), evaluated as the API reference defines it, for the
 * offline proof of the lab's isolation: which endpoint may open a connection to which other on a port.
 *
 * - A pod is isolated for ingress (egress) when a policy of its namespace whose policyTypes hold Ingress
 *   (Egress) selects it; policyTypes left out means Ingress, plus Egress when the policy has egress rules.
 * - A connection is allowed when the source's egress allows it (or the source is not isolated for egress)
 *   and the destination's ingress allows it (or it is not isolated for ingress).
 * - A rule with no peers allows every peer; with no ports, every port. A peer is a podSelector (pods of
 *   the policy's own namespace), a namespaceSelector (every pod of those namespaces), both (those pods of
 *   those namespaces), or an ipBlock (addresses outside the cluster here: a pod's own address is never
 *   matched, as most network plugins do for pods).
 * - A port is a number, optionally with endPort, or the name of a container port of the destination pod;
 *   protocol TCP unless given.
 */

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: {
    key: string;
    operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
    values?: string[];
  }[];
}
export interface PolicyPort {
  protocol?: string;
  port?: number | string;
  endPort?: number;
}
export interface PolicyPeer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string; except?: string[] };
}
export interface PolicyRule {
  from?: PolicyPeer[];
  to?: PolicyPeer[];
  ports?: PolicyPort[];
}
export interface NetworkPolicy {
  metadata: { name: string; namespace: string };
  spec: {
    podSelector: LabelSelector;
    policyTypes?: ('Ingress' | 'Egress')[];
    ingress?: PolicyRule[];
    egress?: PolicyRule[];
  };
}

export interface Port {
  port: number;
  protocol: string;
  name?: string;
}
/** A pod (namespace set) or an address outside the cluster (ip set). */
export interface Endpoint {
  id: string;
  namespace?: string;
  labels?: Record<string, string>;
  ip?: string;
  ports: Port[];
}
export interface Namespace {
  name: string;
  labels: Record<string, string>;
}

export function matches(selector: LabelSelector | undefined, labels: Record<string, string>): boolean {
  if (!selector) return true;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const value = labels[e.key];
    const ok =
      e.operator === 'In'
        ? has && (e.values ?? []).includes(value as string)
        : e.operator === 'NotIn'
          ? !has || !(e.values ?? []).includes(value as string)
          : e.operator === 'Exists'
            ? has
            : !has;
    if (!ok) return false;
  }
  return true;
}

function ipToInt(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}
export function inCidr(ip: string, cidr: string): boolean {
  const [base, bitsText] = cidr.split('/');
  const bits = Number(bitsText);
  if (bits === 0) return true;
  const mask = 2 ** 32 - 2 ** (32 - bits);
  return (ipToInt(ip) & mask) >>> 0 === (ipToInt(base as string) & mask) >>> 0;
}

function policyTypes(p: NetworkPolicy): ('Ingress' | 'Egress')[] {
  if (p.spec.policyTypes) return p.spec.policyTypes;
  return p.spec.egress ? ['Ingress', 'Egress'] : ['Ingress'];
}

export class Cluster {
  private readonly namespaces: Map<string, Record<string, string>>;
  constructor(
    namespaces: Namespace[],
    private readonly policies: NetworkPolicy[],
  ) {
    this.namespaces = new Map(
      namespaces.map((n) => [n.name, { ...n.labels, 'kubernetes.io/metadata.name': n.name }]),
    );
  }

  private selecting(pod: Endpoint, type: 'Ingress' | 'Egress'): NetworkPolicy[] {
    if (pod.namespace === undefined) return [];
    return this.policies.filter(
      (p) =>
        p.metadata.namespace === pod.namespace &&
        policyTypes(p).includes(type) &&
        matches(p.spec.podSelector, pod.labels ?? {}),
    );
  }

  private peerMatches(peer: PolicyPeer, policyNs: string, other: Endpoint): boolean {
    if (peer.ipBlock) {
      if (other.ip === undefined) return false;
      return (
        inCidr(other.ip, peer.ipBlock.cidr) &&
        !(peer.ipBlock.except ?? []).some((c) => inCidr(other.ip as string, c))
      );
    }
    if (other.namespace === undefined) return false;
    const nsLabels = this.namespaces.get(other.namespace);
    if (!nsLabels) throw new Error(`no namespace ${other.namespace}`);
    if (peer.namespaceSelector) {
      if (!matches(peer.namespaceSelector, nsLabels)) return false;
    } else if (other.namespace !== policyNs) return false;
    return peer.podSelector ? matches(peer.podSelector, other.labels ?? {}) : true;
  }

  private portMatches(rulePorts: PolicyPort[] | undefined, dst: Endpoint, port: Port): boolean {
    if (!rulePorts || rulePorts.length === 0) return true;
    return rulePorts.some((p) => {
      if ((p.protocol ?? 'TCP') !== port.protocol) return false;
      if (p.port === undefined) return true;
      if (typeof p.port === 'string') return dst.ports.some((d) => d.name === p.port && d.port === port.port);
      return p.endPort === undefined ? p.port === port.port : port.port >= p.port && port.port <= p.endPort;
    });
  }

  private ruleAllows(
    rule: PolicyRule,
    peers: PolicyPeer[] | undefined,
    ns: string,
    other: Endpoint,
    dst: Endpoint,
    port: Port,
  ) {
    const peerOk = !peers || peers.length === 0 || peers.some((peer) => this.peerMatches(peer, ns, other));
    return peerOk && this.portMatches(rule.ports, dst, port);
  }

  allows(src: Endpoint, dst: Endpoint, port: Port): boolean {
    const egress = this.selecting(src, 'Egress');
    const out =
      egress.length === 0 ||
      egress.some((p) =>
        (p.spec.egress ?? []).some((r) => this.ruleAllows(r, r.to, p.metadata.namespace, dst, dst, port)),
      );
    if (!out) return false;
    const ingress = this.selecting(dst, 'Ingress');
    return (
      ingress.length === 0 ||
      ingress.some((p) =>
        (p.spec.ingress ?? []).some((r) => this.ruleAllows(r, r.from, p.metadata.namespace, src, dst, port)),
      )
    );
  }

  /** Every allowed "src -> dst:port/protocol", sorted; a source never counts itself. */
  table(endpoints: Endpoint[]): string[] {
    const rows: string[] = [];
    for (const src of endpoints)
      for (const dst of endpoints) {
        if (src === dst) continue;
        for (const port of dst.ports)
          if (this.allows(src, dst, port)) rows.push(`${src.id} -> ${dst.id}:${port.port}/${port.protocol}`);
      }
    return rows.sort();
  }
}
