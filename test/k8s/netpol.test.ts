/**
 * The NetworkPolicy evaluator (./netpol.ts) against the semantics the Kubernetes documentation spells out
 * with its own examples ("Network Policies", concepts/services-networking/network-policies): no policy
 * means open; a selected pod is isolated in the direction its policyTypes name; a peer with both selectors
 * is their AND, two peers are an OR; ipBlock; named and ranged ports; both ends must allow.
 */
import { describe, expect, it } from 'vitest';
import { Cluster, type Endpoint, inCidr, matches, type Namespace, type NetworkPolicy } from './netpol.js';

const ns: Namespace[] = [
  { name: 'default', labels: {} },
  { name: 'prod', labels: { user: 'alice' } },
];
const web: Endpoint = {
  id: 'web',
  namespace: 'default',
  labels: { role: 'db' },
  ports: [{ port: 6379, protocol: 'TCP', name: 'redis' }],
};
const front: Endpoint = { id: 'front', namespace: 'default', labels: { role: 'frontend' }, ports: [] };
const prodClient: Endpoint = { id: 'prod-client', namespace: 'prod', labels: { role: 'client' }, ports: [] };
const prodFront: Endpoint = { id: 'prod-front', namespace: 'prod', labels: { role: 'frontend' }, ports: [] };
const outside: Endpoint = { id: 'outside', ip: '172.17.1.9', ports: [] };
const tcp6379 = { port: 6379, protocol: 'TCP' };

const policy = (spec: NetworkPolicy['spec'], namespace = 'default'): NetworkPolicy => ({
  metadata: { name: 'p', namespace },
  spec,
});

describe('selectors and addresses', () => {
  it('matchLabels and each matchExpressions operator', () => {
    const labels = { tier: 'db', env: 'prod' };
    expect(matches({}, labels)).toBe(true);
    expect(matches({ matchLabels: { tier: 'db' } }, labels)).toBe(true);
    expect(matches({ matchLabels: { tier: 'web' } }, labels)).toBe(false);
    expect(
      matches({ matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'qa'] }] }, labels),
    ).toBe(true);
    expect(matches({ matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] }, labels)).toBe(
      false,
    );
    expect(matches({ matchExpressions: [{ key: 'gone', operator: 'DoesNotExist' }] }, labels)).toBe(true);
    expect(matches({ matchExpressions: [{ key: 'gone', operator: 'Exists' }] }, labels)).toBe(false);
  });

  it('CIDR membership', () => {
    expect(inCidr('172.17.1.9', '172.17.0.0/16')).toBe(true);
    expect(inCidr('172.18.0.1', '172.17.0.0/16')).toBe(false);
    expect(inCidr('8.8.8.8', '0.0.0.0/0')).toBe(true);
  });
});

describe('isolation', () => {
  it('with no policy, everything is allowed', () => {
    expect(new Cluster(ns, []).allows(front, web, tcp6379)).toBe(true);
  });

  it('default deny ingress isolates the selected pods for ingress only', () => {
    const c = new Cluster(ns, [policy({ podSelector: {}, policyTypes: ['Ingress'] })]);
    expect(c.allows(front, web, tcp6379)).toBe(false);
    expect(c.allows(web, outside, tcp6379)).toBe(true);
  });

  it('policyTypes left out: Ingress, and Egress only when there are egress rules', () => {
    const ingressOnly = new Cluster(ns, [policy({ podSelector: {} })]);
    expect(ingressOnly.allows(web, outside, tcp6379)).toBe(true);
    const withEgress = new Cluster(ns, [
      policy({ podSelector: {}, egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8' } }] }] }),
    ]);
    expect(withEgress.allows(web, outside, tcp6379)).toBe(false);
  });

  it('both ends must allow: egress of the source and ingress of the destination', () => {
    const ingress = policy({
      podSelector: { matchLabels: { role: 'db' } },
      policyTypes: ['Ingress'],
      ingress: [{ from: [{ podSelector: { matchLabels: { role: 'frontend' } } }] }],
    });
    const denyEgress = policy({
      podSelector: { matchLabels: { role: 'frontend' } },
      policyTypes: ['Egress'],
    });
    expect(new Cluster(ns, [ingress]).allows(front, web, tcp6379)).toBe(true);
    expect(new Cluster(ns, [ingress, denyEgress]).allows(front, web, tcp6379)).toBe(false);
  });
});

describe('peers (the documentation\'s "and" and "or")', () => {
  const db = { matchLabels: { role: 'db' } };
  it('namespaceSelector and podSelector in one peer: pods with the label in those namespaces', () => {
    const c = new Cluster(ns, [
      policy({
        podSelector: db,
        policyTypes: ['Ingress'],
        ingress: [
          {
            from: [
              {
                namespaceSelector: { matchLabels: { user: 'alice' } },
                podSelector: { matchLabels: { role: 'client' } },
              },
            ],
          },
        ],
      }),
    ]);
    expect(c.allows(prodClient, web, tcp6379)).toBe(true);
    expect(c.allows(prodFront, web, tcp6379)).toBe(false);
  });

  it("two peers: every pod of those namespaces, or pods with the label in the policy's own namespace", () => {
    const c = new Cluster(ns, [
      policy({
        podSelector: db,
        policyTypes: ['Ingress'],
        ingress: [
          {
            from: [
              { namespaceSelector: { matchLabels: { user: 'alice' } } },
              { podSelector: { matchLabels: { role: 'client' } } },
            ],
          },
        ],
      }),
    ]);
    expect(c.allows(prodFront, web, tcp6379)).toBe(true);
    expect(c.allows(front, web, tcp6379)).toBe(false);
  });

  it('a podSelector alone never reaches into another namespace', () => {
    const c = new Cluster(ns, [
      policy({
        podSelector: db,
        policyTypes: ['Ingress'],
        ingress: [{ from: [{ podSelector: { matchLabels: { role: 'frontend' } } }] }],
      }),
    ]);
    expect(c.allows(front, web, tcp6379)).toBe(true);
    expect(c.allows(prodFront, web, tcp6379)).toBe(false);
  });

  it('ipBlock with except', () => {
    const c = new Cluster(ns, [
      policy({
        podSelector: {},
        policyTypes: ['Egress'],
        egress: [{ to: [{ ipBlock: { cidr: '172.17.0.0/16', except: ['172.17.1.0/24'] } }] }],
      }),
    ]);
    expect(c.allows(web, outside, tcp6379)).toBe(false);
    expect(c.allows(web, { ...outside, ip: '172.17.2.9' }, tcp6379)).toBe(true);
  });
});

describe('ports', () => {
  const rule = (ports: NetworkPolicy['spec']['ingress']) =>
    new Cluster(ns, [policy({ podSelector: {}, policyTypes: ['Ingress'], ingress: ports })]);
  it("a number, a protocol, a name of the destination's port, a range", () => {
    expect(rule([{ ports: [{ port: 6379 }] }]).allows(front, web, tcp6379)).toBe(true);
    expect(rule([{ ports: [{ port: 6379, protocol: 'UDP' }] }]).allows(front, web, tcp6379)).toBe(false);
    expect(rule([{ ports: [{ port: 'redis' }] }]).allows(front, web, tcp6379)).toBe(true);
    expect(rule([{ ports: [{ port: 'http' }] }]).allows(front, web, tcp6379)).toBe(false);
    expect(rule([{ ports: [{ port: 6000, endPort: 7000 }] }]).allows(front, web, tcp6379)).toBe(true);
    expect(rule([{ ports: [{ port: 80 }] }]).allows(front, web, tcp6379)).toBe(false);
  });
});
