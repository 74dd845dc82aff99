/**
 * n8n's pod, where a trainee's workflows run, looks no name up: the cluster's resolver forwards names
 * outside the cluster, so a lookup of a name of the workflow's choosing would carry data out (compose's
 * n8n has no such way: the embedded DNS of an internal network forwards nothing). Its resolver is
 * loopback, and it dials Postgres and the mock API by the addresses the kubelet gives it (service links,
 * ./kubelet.ts): each setting it dials is an address once the kubelet has expanded it, and the mock API
 * answers that address as Host. The init container that holds n8n back until both addresses are there is
 * run here as the kubelet runs it. The NetworkPolicies' side (no DNS server reachable from n8n's pod) is
 * isolation.test.ts's. Each check is shown to fail on a manifest broken on purpose, the old one first.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../app/api/config.js';
import { parseResponses, rawExchange, startTestServer } from '../helpers/raw-http.js';
import { containerCommand, containerEnv, type LiveService, liveServices } from './kubelet.js';
import { documents, type K8sObject, podTemplate, ROOT, render } from './render.js';

const NS = 'soar-lab-alice';
/** The addresses the cluster gives the lab's Services when they are made (any would do). */
const ADDRESSES: Record<string, string> = {
  postgres: '10.96.41.7',
  'mock-api': '10.96.52.9',
  n8n: '10.96.63.11',
  console: '10.96.74.13',
};

let objects: K8sObject[];
let classText: string;
beforeAll(() => {
  const run = render('alice\n');
  expect(run.code, run.stderr).toBe(0);
  classText = run.manifests;
  objects = documents(run.manifests);
});

const workload = (all: K8sObject[], kind: string, name: string) =>
  all.find((o) => o.kind === kind && o.metadata.namespace === NS && o.metadata.name === name) as K8sObject;
const n8nPod = (all: K8sObject[]) => podTemplate(workload(all, 'Deployment', 'n8n')).spec;
const containersOf = (spec: K8sObject): K8sObject[] => [...(spec.initContainers ?? []), ...spec.containers];
const services = (all: K8sObject[]) => liveServices(all, NS, ADDRESSES);
const isIPv4 = (s: string) => /^(\d{1,3})(\.\d{1,3}){3}$/.test(s);
const LOOPBACK = /^(127(\.\d{1,3}){3}|::1)$/;

/** Where each of n8n's containers dials the lab's Services: the setting, and the Service it is for. */
const DIALS: Record<string, Record<string, string>> = {
  n8n: { DB_POSTGRESDB_HOST: 'postgres', MOCK_API_URL: 'mock-api' },
  'wait-for-postgres': { PGHOST: 'postgres', MOCK_API_HOST: 'mock-api' },
};

/** The host a setting dials: a URL's, or the setting itself. */
const hostOf = (value: string) => (/^[a-z]+:\/\//.test(value) ? new URL(value).hostname : value);

/**
 * What n8n's pod would look up, or dial by something other than its Service's address: one line a
 * finding, none when the pod needs no resolver. `live` are the Services the kubelet knows of when it
 * starts the pod's containers (the lab's, by default).
 */
function nameViolations(all: K8sObject[], live: LiveService[] = services(all)): string[] {
  const out: string[] = [];
  const pod = n8nPod(all);
  if (pod.dnsPolicy !== 'None')
    out.push(`n8n's pod asks the cluster's resolver (dnsPolicy ${pod.dnsPolicy ?? 'ClusterFirst'})`);
  const servers: string[] = pod.dnsConfig?.nameservers ?? [];
  if (servers.length === 0 || !servers.every((s) => LOOPBACK.test(s)))
    out.push(`n8n's resolver is ${servers.join(', ') || 'none'}, not loopback alone`);
  const names = live.map((s) => s.name);
  for (const c of containersOf(pod)) {
    const env = containerEnv(all, NS, pod, c, live);
    for (const [key, value] of Object.entries(env)) {
      // A URL's host, or a host setting's value: by name when it is a Service's, short or qualified.
      const host = value.includes('://') ? hostOf(value) : /HOST$/.test(key) ? value : '';
      const named = names.find((n) => host === n || host.startsWith(`${n}.`));
      if (named) out.push(`${c.name}: ${key}=${value} dials the Service ${named} by name`);
    }
    for (const [key, service] of Object.entries(DIALS[c.name] ?? {})) {
      const value = env[key];
      const want = live.find((s) => s.name === service)?.clusterIP;
      if (value === undefined) out.push(`${c.name}: no ${key}`);
      else if (!isIPv4(hostOf(value)) || hostOf(value) !== want)
        out.push(`${c.name}: ${key}=${value} is not the address of the Service ${service}`);
    }
  }
  const main = pod.containers.find((c: K8sObject) => c.name === 'n8n');
  const port = containerEnv(all, NS, pod, main, live).N8N_PORT;
  if (port !== '5678') out.push(`n8n: N8N_PORT=${port}, not its own 5678 (a service link won)`);
  return out;
}

describe("n8n's pod looks no name up", () => {
  it("resolves with loopback alone, and dials Postgres and the mock API by their Services' addresses", () => {
    expect(nameViolations(objects)).toEqual([]);
    const pod = n8nPod(objects);
    const env = containerEnv(objects, NS, pod, pod.containers[0], services(objects));
    expect(env).toMatchObject({
      DB_POSTGRESDB_HOST: ADDRESSES.postgres,
      DB_POSTGRESDB_PORT: '5432',
      MOCK_API_URL: `http://${ADDRESSES['mock-api']}:8081`,
    });
  });

  it("control: the pod as it was (the cluster's resolver, names) fails on each", () => {
    const old = structuredClone(objects);
    const pod = n8nPod(old);
    delete pod.dnsPolicy;
    delete pod.dnsConfig;
    pod.enableServiceLinks = false;
    const n8n = pod.containers[0];
    n8n.env = n8n.env.filter((e: K8sObject) => !['DB_POSTGRESDB_HOST', 'MOCK_API_URL'].includes(e.name));
    n8n.env.push(
      { name: 'DB_POSTGRESDB_HOST', value: 'postgres' },
      { name: 'MOCK_API_URL', value: 'http://mock-api:8081' },
    );
    pod.initContainers[0].env = [];
    const found = nameViolations(old).join('\n');
    expect(found).toContain("n8n's pod asks the cluster's resolver (dnsPolicy ClusterFirst)");
    expect(found).toContain("n8n's resolver is none, not loopback alone");
    expect(found).toContain('n8n: DB_POSTGRESDB_HOST=postgres dials the Service postgres by name');
    expect(found).toContain('n8n: MOCK_API_URL=http://mock-api:8081 dials the Service mock-api by name');
  });

  it.each([
    [
      "the cluster's resolver",
      (p: K8sObject) => {
        p.dnsPolicy = 'ClusterFirst';
      },
      "asks the cluster's resolver (dnsPolicy ClusterFirst)",
    ],
    [
      'the DNS Service as its nameserver',
      (p: K8sObject) => {
        p.dnsConfig.nameservers = ['10.96.0.10'];
      },
      "n8n's resolver is 10.96.0.10, not loopback alone",
    ],
    [
      'no service links (the references stay as they are)',
      (p: K8sObject) => {
        p.enableServiceLinks = false;
      },
      'n8n: DB_POSTGRESDB_HOST=$(POSTGRES_SERVICE_HOST) is not the address of the Service postgres',
    ],
    [
      'the mock API by name',
      (p: K8sObject) => {
        p.containers[0].env.find((e: K8sObject) => e.name === 'MOCK_API_URL').value = 'http://mock-api:8081';
      },
      'MOCK_API_URL=http://mock-api:8081 dials the Service mock-api by name',
    ],
    [
      'the mock API by its fully qualified name',
      (p: K8sObject) => {
        p.containers[0].env.find((e: K8sObject) => e.name === 'MOCK_API_URL').value =
          'http://mock-api.soar-lab-alice.svc.cluster.local:8081';
      },
      'is not the address of the Service mock-api',
    ],
    [
      "Postgres's address for the mock API",
      (p: K8sObject) => {
        p.containers[0].env.find((e: K8sObject) => e.name === 'MOCK_API_URL').value =
          'http://$(POSTGRES_SERVICE_HOST):8081';
      },
      'is not the address of the Service mock-api',
    ],
    [
      'the wait asking Postgres by name',
      (p: K8sObject) => {
        p.initContainers[0].env.find((e: K8sObject) => e.name === 'PGHOST').value = 'postgres';
      },
      'wait-for-postgres: PGHOST=postgres dials the Service postgres by name',
    ],
    [
      "n8n's own port left to the service link of the Service n8n",
      (p: K8sObject) => {
        p.containers[0].envFrom = [];
      },
      'N8N_PORT=tcp://10.96.63.11:5678, not its own 5678',
    ],
  ])('fails with %s', (_, breakIt, reason) => {
    const broken = structuredClone(objects);
    breakIt(n8nPod(broken));
    expect(nameViolations(broken).join('\n')).toContain(reason);
  });

  it('control: Services the kubelet has not seen when it starts the pod leave the references unexpanded', () => {
    expect(nameViolations(objects, []).join('\n')).toContain(
      'n8n: MOCK_API_URL=http://$(MOCK_API_SERVICE_HOST):8081 is not the address of the Service mock-api',
    );
  });

  it("the Services n8n dials come before n8n's Deployment in the class (kubectl apply makes them first), IPv4", () => {
    const order = objects
      .filter((o) => o.metadata?.namespace === NS)
      .map((o) => `${o.kind}/${o.metadata.name}`);
    for (const s of ['postgres', 'mock-api']) {
      expect(order.indexOf(`Service/${s}`)).toBeGreaterThan(-1);
      expect(order.indexOf(`Service/${s}`)).toBeLessThan(order.indexOf('Deployment/n8n'));
      const service = workload(objects, 'Service', s);
      expect(service.spec.clusterIP).toBeUndefined();
      expect(service.spec).toMatchObject({ ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4'] });
    }
    expect(classText.indexOf('kind: Service')).toBeLessThan(classText.indexOf('kind: Deployment'));
  });

  it("the guide's workflows and their stages name no host: every URL starts from $env.MOCK_API_URL", () => {
    const dir = `${ROOT}docker/workflows`;
    const files = [
      ...readdirSync(dir).filter((f) => f.endsWith('.json')),
      ...readdirSync(`${dir}/stages`).map((f) => `stages/${f}`),
    ];
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) {
      const text = readFileSync(`${dir}/${f}`, 'utf8');
      expect(text, f).not.toMatch(/https?:\/\/(mock-api|postgres)\b/);
      if (text.includes('"url"')) expect(text, f).toMatch(/\$env\.MOCK_API_URL/);
    }
  });
});

describe("the wait in n8n's pod: both addresses, or fail and be started again", () => {
  const stubs = mkdtempSync(join(tmpdir(), 'k8s-wait-'));
  afterAll(() => rmSync(stubs, { recursive: true, force: true }));
  beforeAll(() => {
    // pg_isready answers at once; it records the host it was asked.
    writeFileSync(join(stubs, 'pg_isready'), `#!/bin/sh\necho "pg_isready $*" >>"${stubs}/asked"\n`);
    chmodSync(join(stubs, 'pg_isready'), 0o755);
  });

  /** The init container run as the kubelet runs it, with the Services the kubelet knows of. */
  function wait(live: LiveService[]) {
    const pod = n8nPod(objects);
    const c = pod.initContainers[0];
    const env = containerEnv(objects, NS, pod, c, live);
    const [cmd = '', ...args] = containerCommand(c, env);
    rmSync(join(stubs, 'asked'), { force: true });
    const run = spawnSync(cmd, args, {
      env: { ...env, PATH: `${stubs}:/usr/bin:/bin` },
      encoding: 'utf8',
      timeout: 10_000,
    });
    let asked = '';
    try {
      asked = readFileSync(join(stubs, 'asked'), 'utf8');
    } catch {}
    return { code: run.status, stderr: run.stderr, asked };
  }

  it("asks Postgres at its Service's address once both addresses are there", () => {
    const run = wait(services(objects));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.asked).toBe(`pg_isready -q -h ${ADDRESSES.postgres} -p 5432 -U n8n -d n8n -t 3\n`);
  });

  it.each([
    ['no Service yet', () => []],
    ["the mock API's Service not yet", () => services(objects).filter((s) => s.name !== 'mock-api')],
    [
      'an IPv6 address',
      () => services(objects).map((s) => (s.name === 'mock-api' ? { ...s, clusterIP: 'fd00:10:96::9' } : s)),
    ],
  ])('fails, saying why, with %s', (_, live) => {
    const run = wait(live());
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("n8n has no IPv4 address for the Service postgres or mock-api (got '");
    expect(run.stderr).toContain("both Services must exist before n8n's pod starts");
    expect(run.asked).toBe('');
  });
});

describe("the mock API answers n8n at its Service's address", () => {
  /** The mock API with the rendered container's settings, on loopback; a GET with the Host given. */
  async function askWithHost(host: string) {
    const pod = podTemplate(workload(objects, 'Deployment', 'mock-api')).spec;
    const c = pod.containers.find((x: K8sObject) => x.name === 'mock-api');
    const env = containerEnv(objects, NS, pod, c, services(objects));
    const config = loadConfig([], env);
    expect(config.allowedHosts).toEqual(['mock-api']);
    const server = await startTestServer({
      access: { allowedClients: config.allowedClients, allowedHosts: config.allowedHosts },
    });
    try {
      const [res] = parseResponses(
        await rawExchange(server.port, [
          `GET /health HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
        ]),
      );
      return res?.status;
    } finally {
      await server.close();
    }
  }

  it("takes the Host n8n's HTTP Request node sends for MOCK_API_URL", async () => {
    const pod = n8nPod(objects);
    const url = new URL(
      String(containerEnv(objects, NS, pod, pod.containers[0], services(objects)).MOCK_API_URL),
    );
    expect(url.host).toBe(`${ADDRESSES['mock-api']}:8081`);
    expect(await askWithHost(url.host)).toBe(200);
  });

  it('control: it refuses a name it does not answer for (what a DNS rebinding carries)', async () => {
    expect(await askWithHost('mock-api.attacker.example:8081')).toBe(403);
  });
});
