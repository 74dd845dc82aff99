/**
 * The lab on Kubernetes keeps compose.yaml's isolation: the table of who reaches whom taken from the
 * rendered NetworkPolicies (./netpol.ts) is the compose lab's, less the paths compose's shared networks
 * open that nothing in the lab uses (each named below with its reason), with the console's editor gate and
 * its refusal of n8n's network modelled (each shown to count); nothing crosses namespaces but the mock API
 * pod's lookups (wherever the cluster answers them, port 53 only), the set-up's calls to the API server and
 * the ingress controller's pods (those pods only); n8n's pod, where the trainee's workflows run, reaches no
 * DNS server at all (the old rule, which let it, is shown to fail); a stranger pod reaches nothing; and
 * every single rule taken out of a policy breaks the match.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readRepoFile } from '../appliance/compose-policy.js';
import {
  API_SERVER,
  clusterTable,
  composeFile,
  composeTable,
  DNS_SERVERS,
  podsOf,
  policiesOf,
  rowsOf,
  STRANGER,
  world,
} from './lab-network.js';
import type { LabelSelector, NetworkPolicy } from './netpol.js';
import { documents, type K8sObject, render } from './render.js';

const A = 'soar-lab-alice';
const B = 'soar-lab-bob';

/**
 * What compose.yaml's networks allow that the cluster does not: a shared network opens every port of
 * every member to every other, and the editor network is not internal; the cluster opens only what a
 * pod dials. The lab works without each of these (make test-lab proves the compose lab's own paths).
 */
const NARROWED: Record<string, string> = {
  'mock-api -> internet:443/TCP': 'the console and the set-up dial n8n only',
  'mock-api -> internet:53/UDP': 'the console and the set-up dial n8n only',
  'postgres -> n8n:5678/TCP': 'the database dials nothing',
};
/**
 * The pods that look names up (they dial by service name): the cluster's DNS, and only theirs. Not n8n's:
 * the cluster's resolver forwards names outside the cluster, and a lookup of a name a workflow chooses
 * would carry data out; n8n dials the lab's Services by address (names.test.ts).
 */
const DNS_CLIENTS = ['mock-api'];

/** The base's DNS rule before n8n lost it: n8n's pod and the mock API's to the cluster's DNS. */
const OLD_DNS_SELECTOR: LabelSelector = {
  matchExpressions: [{ key: 'app.kubernetes.io/component', operator: 'In', values: ['n8n', 'mock-api'] }],
};

/** Every way n8n's pod has to a DNS server, or to anything's port 53: none, or the lookups leave. */
function n8nLookups(objects: K8sObject[], policies = policiesOf(objects)): string[] {
  return rowsOf(clusterTable(objects, policies), A).filter(
    (r) => r.startsWith('n8n -> ') && (r.includes(' -> dns/') || /:53\/(UDP|TCP)$/.test(r)),
  );
}

let objects: K8sObject[];
/** The same class without K8S_HOST: port-forward only. */
let portForward: K8sObject[];
let podOf: Record<string, string>;

beforeAll(() => {
  const run = render('alice\nbob\n', { K8S_HOST: 'lab.example.org' });
  expect(run.code, run.stderr).toBe(0);
  objects = documents(run.manifests);
  const plain = render('alice\nbob\n');
  expect(plain.code, plain.stderr).toBe(0);
  portForward = documents(plain.manifests);
  const pods = podsOf(objects, A);
  // Each compose service runs in the pod that holds its container (the tools' set-up: n8n-setup).
  const service = (name: string) =>
    pods.find((p) => p.containers.includes(name === 'tools' ? 'n8n-setup' : name));
  podOf = Object.fromEntries(
    Object.keys(composeFile().services).map((s) => [
      s,
      service(s)?.id.slice(A.length + 1) ?? `(no pod runs ${s})`,
    ]),
  );
});

/** A namespace's rows without the cluster's own services (compose's resolver is on no network). */
const withoutDns = (rows: string[]) => rows.filter((r) => !/ -> (dns|api-server)\//.test(r));

function expected(text?: string): string[] {
  const compose = composeTable(podOf, text);
  for (const row of Object.keys(NARROWED))
    expect(compose, `NARROWED names a path compose.yaml does not open: ${row}`).toContain(row);
  return compose.filter((row) => !Object.hasOwn(NARROWED, row));
}

describe('who reaches whom in a trainee namespace', () => {
  it('is the compose lab table, less the narrowed paths', () => {
    expect(withoutDns(rowsOf(clusterTable(objects), A)).filter((r) => !r.includes(STRANGER))).toEqual(
      expected(),
    );
    expect(expected()).toEqual([
      'host -> mock-api:8088/TCP',
      'host -> n8n:5678/TCP',
      'mock-api -> n8n:5678/TCP',
      'n8n -> mock-api:8081/TCP',
      'n8n -> postgres:5432/TCP',
    ]);
  });

  it('gives the mock API (8081) to n8n only', () => {
    const to8081 = clusterTable(objects).filter((r) => r.endsWith(`${A}/mock-api:8081/TCP`));
    expect(to8081).toEqual([`${A}/n8n -> ${A}/mock-api:8081/TCP`]);
  });

  it('gives Postgres to n8n only', () => {
    const table = clusterTable(objects);
    expect(table.filter((r) => r.endsWith(`${A}/postgres:5432/TCP`)).map((r) => r.split(' -> ')[0])).toEqual([
      `${A}/n8n`,
    ]);
  });

  it("lets n8n, where the trainee's workflows run, dial the mock API and Postgres, nothing else: no DNS", () => {
    const out = rowsOf(clusterTable(objects), A).filter((r) => r.startsWith('n8n -> '));
    expect(out).toEqual(['n8n -> mock-api:8081/TCP', 'n8n -> postgres:5432/TCP']);
    expect(n8nLookups(objects)).toEqual([]);
  });

  it("control: the old DNS rule (n8n's pod and the mock API's) lets n8n's lookups out, everywhere DNS answers", () => {
    const policies = structuredClone(policiesOf(objects));
    const dns = policies.filter((p) => p.metadata.name === 'dns');
    expect(dns).toHaveLength(2);
    for (const p of dns) p.spec.podSelector = structuredClone(OLD_DNS_SELECTOR);
    expect(n8nLookups(objects, policies)).toEqual(
      DNS_SERVERS.flatMap((d) => [`n8n -> ${d.id}:53/TCP`, `n8n -> ${d.id}:53/UDP`]).sort(),
    );
  });

  it("control: a DNS rule for every pod of the lab lets n8n's lookups out too", () => {
    const policies = structuredClone(policiesOf(objects));
    for (const p of policies.filter((x) => x.metadata.name === 'dns')) p.spec.podSelector = {};
    expect(n8nLookups(objects, policies)).not.toEqual([]);
  });

  it("lets the pods that dial by name reach the cluster's DNS wherever it answers, on port 53 only", () => {
    const dns = rowsOf(clusterTable(objects), A).filter((r) => r.includes(' -> dns/'));
    expect(dns).toEqual(
      DNS_CLIENTS.flatMap((p) =>
        DNS_SERVERS.flatMap((d) => [`${p} -> ${d.id}:53/TCP`, `${p} -> ${d.id}:53/UDP`]),
      ).sort(),
    );
  });

  it('control: a DNS policy that names only kube-dns pods loses CoreDNS, NodeLocal DNSCache, Cloud DNS', () => {
    const policies = structuredClone(policiesOf(objects));
    for (const p of policies.filter((x) => x.metadata.name === 'dns'))
      p.spec.egress = [
        {
          to: [
            {
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
              podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
            },
          ],
          ports: [{ protocol: 'UDP', port: 53 }],
        },
      ];
    const reached = rowsOf(clusterTable(objects, policies), A).filter((r) =>
      r.startsWith('mock-api -> dns/'),
    );
    expect(reached).toEqual(['mock-api -> dns/kube-dns:53/UDP']);
  });

  it("gives the API server to the set-up's pod only, on its own ports", () => {
    const rows = rowsOf(clusterTable(objects), A).filter((r) => r.includes(' -> api-server/'));
    expect(rows).toEqual(API_SERVER.map((a) => `mock-api -> ${a.id}:${a.ports[0]?.port}/TCP`));
  });
});

describe("compose's table: the console's editor gate and its refusal of n8n's network", () => {
  const composeText = readRepoFile('compose.yaml');
  /** compose.yaml with one change, which must change the text (else the control would prove nothing). */
  const edited = (from: RegExp, to: string) => {
    const text = composeText.replace(from, to);
    expect(text, `compose.yaml has no ${from}`).not.toBe(composeText);
    return text;
  };
  const clusterRows = () => withoutDns(rowsOf(clusterTable(objects), A)).filter((r) => !r.includes(STRANGER));

  it("reaches n8n's editor from the host through the console's gate alone: n8n publishes no port", () => {
    const file = composeFile();
    expect(file.services.n8n?.ports ?? []).toEqual([]);
    expect(expected()).toContain('host -> n8n:5678/TCP');
  });

  it('control: a gate on a console that shares no network with n8n passes nothing through', () => {
    const text = edited(/^( {4}networks: )\[editor, n8n-front\]$/m, '$1[editor]');
    expect(expected(text)).not.toContain('host -> n8n:5678/TCP');
    expect(clusterRows().filter((r) => !expected(text).includes(r))).toEqual(['host -> n8n:5678/TCP']);
  });

  it('control: without EDITOR_GATE_PORT the console would publish a port nothing listens on', () => {
    const text = edited(/^ *EDITOR_GATE_PORT:.*\n/m, '');
    expect(() => composeTable(podOf, text)).toThrow('console publishes 5678, where nothing listens');
  });

  it("keeps n8n from the console although they share n8n-front (CONSOLE_REFUSED_CLIENTS: n8n-front's subnet)", () => {
    expect(composeTable(podOf).filter((r) => r.startsWith('n8n -> mock-api:'))).toEqual([
      'n8n -> mock-api:8081/TCP',
    ]);
  });

  it('control: without CONSOLE_REFUSED_CLIENTS, n8n reaches the console and the tables differ', () => {
    const text = edited(/^ *CONSOLE_REFUSED_CLIENTS:.*\n/m, '');
    expect(expected(text)).not.toEqual(clusterRows());
    expect(expected(text).filter((r) => !clusterRows().includes(r))).toEqual(['n8n -> mock-api:8088/TCP']);
  });

  it("control: refusing an address block that is not n8n-front's subnet keeps nothing out", () => {
    const text = edited(/^( *CONSOLE_REFUSED_CLIENTS:).*$/m, '$1 10.9.9.0/24');
    expect(expected(text).filter((r) => !clusterRows().includes(r))).toEqual(['n8n -> mock-api:8088/TCP']);
  });
});

describe('the way in', () => {
  it("admits the ingress controller's pods to the editor and the console, not the rest of its namespace", () => {
    const table = clusterTable(objects);
    const intoLabs = (r: string) => /-> soar-lab-[a-z]+\//.test(r);
    expect(table.filter((r) => r.startsWith('host -> ') && intoLabs(r))).toEqual(
      [A, B].flatMap((ns) => [`host -> ${ns}/mock-api:8088/TCP`, `host -> ${ns}/n8n:5678/TCP`]).sort(),
    );
    for (const other of ['ingress-neighbour', 'lookalike', 'elsewhere'])
      expect(table.filter((r) => r.startsWith(`${other} -> `) && intoLabs(r))).toEqual([]);
  });

  it('control: a peer naming the whole namespace would admit every pod of it', () => {
    const policies = structuredClone(policiesOf(objects));
    for (const p of policies)
      for (const rule of p.spec.ingress ?? []) for (const peer of rule.from ?? []) delete peer.podSelector;
    expect(clusterTable(objects, policies).filter((r) => r.startsWith('ingress-neighbour -> '))).not.toEqual(
      [],
    );
  });

  it('without K8S_HOST nothing outside a lab reaches its editor or console (port-forward only)', () => {
    const table = clusterTable(portForward);
    expect(table.filter((r) => /^(host|ingress-neighbour|lookalike|elsewhere) -> soar-lab-/.test(r))).toEqual(
      [],
    );
    expect(
      policiesOf(portForward)
        .flatMap((p) => p.spec.ingress ?? [])
        .flatMap((r) => r.from ?? []),
    ).not.toContainEqual(expect.objectContaining({ namespaceSelector: expect.anything() }));
  });
});

describe('between namespaces', () => {
  it('nothing crosses from one trainee to another, either way', () => {
    const crossing = clusterTable(objects).filter((r) => {
      const [src, dst] = r.split(' -> ') as [string, string];
      return (
        (src.startsWith(`${A}/`) && dst.startsWith(`${B}/`)) ||
        (src.startsWith(`${B}/`) && dst.startsWith(`${A}/`))
      );
    });
    expect(crossing).toEqual([]);
    expect(withoutDns(rowsOf(clusterTable(objects), B))).toEqual(expected());
  });

  it('a pod of another namespace reaches no lab pod', () => {
    const table = clusterTable(objects);
    const intoLabs = (r: string) => /-> soar-lab-[a-z]+\//.test(r);
    expect(table.filter((r) => r.startsWith('elsewhere -> ') && intoLabs(r))).toEqual([]);
    expect(table.filter((r) => r.startsWith('elsewhere -> ')).length).toBeGreaterThan(0);
  });

  it("no lab pod reaches the metadata server's credentials (port 80) or the internet", () => {
    const out = rowsOf(clusterTable(objects), A).filter((r) => / -> (internet|dns\/cloud-dns:80)/.test(r));
    expect(out).toEqual([]);
  });

  it('a stranger pod in a lab namespace reaches nothing and nothing reaches it', () => {
    expect(clusterTable(objects).filter((r) => r.includes(STRANGER))).toEqual([]);
  });
});

describe('every rule counts', () => {
  /** Every policy with one rule, or one peer of a rule, taken out. */
  function mutations(): [string, NetworkPolicy[]][] {
    const policies = policiesOf(objects).filter((p) => p.metadata.namespace === A);
    const others = policiesOf(objects).filter((p) => p.metadata.namespace !== A);
    const out: [string, NetworkPolicy[]][] = [];
    policies.forEach((policy, i) => {
      for (const dir of ['ingress', 'egress'] as const) {
        const rules = policy.spec[dir] ?? [];
        rules.forEach((rule, r) => {
          const without = structuredClone(policies);
          (without[i] as NetworkPolicy).spec[dir]?.splice(r, 1);
          out.push([`${policy.metadata.name} ${dir}[${r}] removed`, [...without, ...others]]);
          const peers = dir === 'ingress' ? rule.from : rule.to;
          if ((peers?.length ?? 0) > 1)
            peers?.forEach((_, p) => {
              const fewer = structuredClone(policies);
              const target = (fewer[i] as NetworkPolicy).spec[dir]?.[r];
              (dir === 'ingress' ? target?.from : target?.to)?.splice(p, 1);
              out.push([`${policy.metadata.name} ${dir}[${r}] peer ${p} removed`, [...fewer, ...others]]);
            });
        });
      }
    });
    out.push([
      'default-deny removed',
      [...policies.filter((p) => p.metadata.name !== 'default-deny'), ...others],
    ]);
    return out;
  }

  it('there are rules to take out', () => {
    expect(mutations().length).toBeGreaterThan(12);
  });

  it('each one taken out changes the table of namespace A', () => {
    const whole = clusterTable(objects);
    for (const [what, policies] of mutations()) {
      const changed = clusterTable(objects, policies);
      expect(rowsOf(changed, A), what).not.toEqual(rowsOf(whole, A));
    }
  });

  it('one rule taken out fails the comparison with the compose table', () => {
    const [what, policies] = mutations().find(([w]) => w === 'n8n egress[1] removed') ?? [];
    expect(what).toBeDefined();
    const rows = withoutDns(rowsOf(clusterTable(objects, policies), A)).filter((r) => !r.includes(STRANGER));
    expect(rows).not.toEqual(expected());
    expect(expected().filter((r) => !rows.includes(r))).toEqual(['n8n -> mock-api:8081/TCP']);
  });

  it('the world holds both trainee namespaces', () => {
    expect(world(objects).labNamespaces).toEqual([A, B]);
  });
});
