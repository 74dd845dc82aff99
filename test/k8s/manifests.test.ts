/**
 * The rendered class validates against the Kubernetes schemas (kubernetes-models' validators, generated
 * from Kubernetes' own OpenAPI document), carries the hardening on every pod, and agrees with compose.yaml
 * on what both declare: the images, the users, the memory limits and n8n's settings.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { interpolate } from '../appliance/compose-policy.js';
import {
  composeBytes,
  hardeningViolations,
  initContainerNames,
  k8sBytes,
  podSecurityViolations,
  podViolations,
  runAs,
} from './hardening.js';
import { composeFile } from './lab-network.js';
import { documents, type K8sObject, podTemplate, ROOT, render, WORKLOAD_KINDS } from './render.js';
import { schemaError } from './schema.js';

let objects: K8sObject[];
const NS = 'soar-lab-alice';

beforeAll(() => {
  // With every option the render has: an Ingress, a registry login.
  const login = join(mkdtempSync(join(tmpdir(), 'k8s-login-')), 'config.json');
  writeFileSync(login, '{"auths": {"registry.example": {"auth": "dTpw"}}}');
  const run = render('alice\nbob\n', { K8S_HOST: 'lab.example.org', K8S_PULL_SECRET: login });
  expect(run.code, run.stderr).toBe(0);
  objects = documents(run.manifests);
});

const ofNs = () => objects.filter((o) => o.metadata?.namespace === NS || o.metadata?.name === NS);
const workload = (name: string) =>
  ofNs().find((o) => WORKLOAD_KINDS.includes(o.kind) && o.metadata.name === name) as K8sObject;

describe('Kubernetes schemas', () => {
  it('every rendered object validates', () => {
    expect(objects.length).toBeGreaterThan(30);
    expect(
      objects.map((o) => [`${o.kind}/${o.metadata?.name}`, schemaError(o)]).filter(([, e]) => e !== ''),
    ).toEqual([]);
  });

  it.each([
    [
      'a port that is text',
      (d: K8sObject) => {
        d.spec.template.spec.containers[0].ports[0].containerPort = 'eighty';
      },
    ],
    [
      'a misspelt field type',
      (d: K8sObject) => {
        d.spec.replicas = 'one';
      },
    ],
    [
      'no containers',
      (d: K8sObject) => {
        delete d.spec.template.spec.containers;
      },
    ],
  ])('refuses a Deployment with %s', (_, breakIt) => {
    const broken = structuredClone(workload('mock-api'));
    breakIt(broken);
    expect(schemaError(broken)).not.toBe('');
  });

  it('refuses a NetworkPolicy whose rule has a port out of range', () => {
    const broken = structuredClone(
      ofNs().find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'mock-api'),
    ) as K8sObject;
    broken.spec.ingress[0].ports[0].protocol = 7;
    expect(schemaError(broken)).not.toBe('');
  });
});

describe('hardening on every pod', () => {
  it('holds for every container of every workload, init containers included', () => {
    expect(objects.filter((o) => WORKLOAD_KINDS.includes(o.kind)).length).toBe(6);
    // Per lab: the mock API's pod's set-up, n8n's wait for Postgres.
    expect(objects.filter((o) => WORKLOAD_KINDS.includes(o.kind)).flatMap(initContainerNames)).toEqual(
      [...Array(2)].flatMap(() => ['n8n-setup', 'wait-for-postgres']),
    );
    expect(hardeningViolations(objects)).toEqual([]);
  });

  it.each([
    [
      'readOnlyRootFilesystem',
      (c: K8sObject) => {
        c.securityContext.readOnlyRootFilesystem = false;
      },
      'readOnlyRootFilesystem',
    ],
    [
      'allowPrivilegeEscalation',
      (c: K8sObject) => {
        delete c.securityContext.allowPrivilegeEscalation;
      },
      'allowPrivilegeEscalation',
    ],
    [
      'capabilities',
      (c: K8sObject) => {
        c.securityContext.capabilities.drop = ['NET_RAW'];
      },
      'drop ALL',
    ],
    [
      'a memory limit',
      (c: K8sObject) => {
        delete c.resources.limits.memory;
      },
      'no memory limit',
    ],
    [
      'a cpu request',
      (c: K8sObject) => {
        delete c.resources.requests.cpu;
      },
      'no cpu request',
    ],
  ])('fails when the init container loses %s', (_, breakIt, reason) => {
    const broken = structuredClone(workload('mock-api'));
    breakIt(broken.spec.template.spec.initContainers[0]);
    expect(podViolations(broken).join('\n')).toContain(reason);
  });

  it.each([
    [
      'runAsNonRoot',
      (p: K8sObject) => {
        delete p.securityContext.runAsNonRoot;
      },
      'runAsNonRoot',
    ],
    [
      'seccomp',
      (p: K8sObject) => {
        p.securityContext.seccompProfile.type = 'Unconfined';
      },
      'seccomp',
    ],
    [
      'root',
      (p: K8sObject) => {
        p.securityContext.runAsUser = 0;
      },
      'non-root runAsUser',
    ],
    [
      'the service account token',
      (p: K8sObject) => {
        delete p.automountServiceAccountToken;
      },
      'automountServiceAccountToken',
    ],
    [
      'a host path',
      (p: K8sObject) => {
        p.volumes.push({ name: 'docker', hostPath: { path: '/var/run/docker.sock' } });
      },
      'hostPath',
    ],
  ])('fails when a pod loses %s', (_, breakIt, reason) => {
    const broken = structuredClone(workload('postgres'));
    breakIt(broken.spec.template.spec);
    expect(podViolations(broken).join('\n')).toContain(reason);
  });

  it('every lab namespace enforces, warns about and audits the restricted Pod Security Standard, at a fixed version', () => {
    for (const ns of objects.filter((o) => o.kind === 'Namespace'))
      expect(podSecurityViolations(ns.metadata.labels)).toEqual([]);
  });

  it.each([
    ['warn', 'pod-security.kubernetes.io/warn'],
    ['audit', 'pod-security.kubernetes.io/audit'],
    ['a pinned version', 'pod-security.kubernetes.io/enforce-version'],
  ])('fails without %s', (_, label) => {
    const labels = { ...objects.find((o) => o.kind === 'Namespace')?.metadata.labels };
    delete labels[label];
    expect(podSecurityViolations(labels)).not.toEqual([]);
  });
});

/** CPU in millicores: "100m", "1", "0.5". */
const millicores = (q: string | number) =>
  String(q).endsWith('m') ? Number.parseFloat(String(q)) : Number(q) * 1000;

describe('what a lab asks of the cluster', () => {
  it("docs/kubernetes.md gives the sums of one lab's requests and limits", () => {
    const containers = ofNs()
      .filter((o) => WORKLOAD_KINDS.includes(o.kind))
      .flatMap((o) => podTemplate(o).spec.containers as K8sObject[]);
    const sum = (kind: string, res: 'cpu' | 'memory') =>
      containers.reduce((n, c) => n + (res === 'cpu' ? millicores : k8sBytes)(c.resources[kind][res]), 0);
    const doc = readFileSync(`${ROOT}docs/kubernetes.md`, 'utf8').replace(/\s+/g, ' ');
    const cpu = (m: number) => (m % 1000 === 0 || m > 1000 ? `${m / 1000} CPU` : `${m}m CPU`);
    expect(doc).toContain(
      `requests of ${cpu(sum('requests', 'cpu'))} and ${sum('requests', 'memory') / 2 ** 20} MiB, ` +
        `limits of ${cpu(sum('limits', 'cpu'))} and ${sum('limits', 'memory') / 2 ** 20} MiB`,
    );
  });
});

describe('the same lab as compose.yaml', () => {
  const compose = composeFile();
  /** compose service -> the rendered container that runs it. */
  function container(service: string): { pod: K8sObject; c: K8sObject } {
    for (const o of ofNs().filter((x) => WORKLOAD_KINDS.includes(x.kind))) {
      const { spec } = podTemplate(o);
      const c = [...(spec.initContainers ?? []), ...spec.containers].find(
        (x: K8sObject) => x.name === (service === 'tools' ? 'n8n-setup' : service),
      );
      if (c) return { pod: spec, c };
    }
    throw new Error(`no container runs ${service}`);
  }
  /** compose's services that have no container on a cluster, each with the reason. */
  const NOT_ON_K8S: Record<string, string> = {
    walls:
      "the engine host's firewall against classroom machines that route to containers' addresses: on a " +
      "cluster a pod's address is reached only as the NetworkPolicies allow (isolation.test.ts)",
  };
  const services = Object.keys(compose.services).filter((s) => !Object.hasOwn(NOT_ON_K8S, s));
  const n8nEnvironment = () => compose.services.n8n?.environment as Record<string, unknown>;

  it.each(services)('%s: the same image, user and memory limit', (service) => {
    const s = compose.services[service];
    const { pod, c } = container(service);
    const image = s?.image ?? '';
    expect(c.image.split('/').at(-1)).toBe(image.split('/').at(-1));
    const { uid, gid } = runAs(pod, c);
    expect(`${uid}:${gid}`).toBe(String(s?.user));
    expect(k8sBytes(c.resources.limits.memory)).toBe(composeBytes(s?.mem_limit ?? ''));
  });

  /** n8n's container's own `env`, each as its value, or where it comes from. */
  const n8nOwnEnv = () =>
    Object.fromEntries(
      (container('n8n').c.env as K8sObject[]).map((e) => [
        e.name,
        e.valueFrom?.secretKeyRef ? 'secret' : e.valueFrom?.configMapKeyRef ? 'lab-settings' : e.value,
      ]),
    ) as Record<string, string>;

  it("n8n's settings are compose.yaml's, but for what a lab sets itself", () => {
    const n8nEnv = n8nEnvironment();
    const settings = ofNs().find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('n8n-settings-'))
      ?.data as Record<string, string>;
    const fromLab = n8nOwnEnv();
    const k8s: Record<string, string> = { ...settings, ...fromLab };
    // compose hands n8n's secrets to its entrypoint as LAB_SECRET_*, which writes them where the *_FILE
    // settings say (docker/n8n/secrets-entrypoint.sh); a Secret volume puts the files there on a cluster.
    const composeOnly = (k: string) => k.startsWith('LAB_SECRET_');
    const differs = Object.keys(n8nEnv)
      .filter((k) => !composeOnly(k) && String(n8nEnv[k]) !== k8s[k])
      .sort();
    expect(differs).toEqual([
      'APPROVAL_TIMEOUT_SECONDS',
      'DB_POSTGRESDB_HOST',
      'MOCK_API_URL',
      'N8N_EDITOR_BASE_URL',
      'WEBHOOK_URL',
    ]);
    // Nothing besides: no setting of a worker or a queue (n8n's regular mode, as compose.yaml's).
    expect(Object.keys(k8s).filter((k) => !Object.hasOwn(n8nEnv, k))).toEqual([]);
    expect(k8s).toMatchObject({ EXECUTIONS_MODE: 'regular', N8N_CONCURRENCY_PRODUCTION_LIMIT: '5' });
    expect(fromLab).toMatchObject({ WEBHOOK_URL: 'lab-settings', N8N_EDITOR_BASE_URL: 'lab-settings' });
    // The secrets as files, where compose has them.
    for (const key of ['DB_POSTGRESDB_PASSWORD_FILE', 'N8N_ENCRYPTION_KEY_FILE'])
      expect(k8s[key], key).toBe(String(n8nEnv[key]));
  });

  it("n8n dials compose's Postgres and mock API, by their Services' addresses (no DNS in its pod)", () => {
    const n8nEnv = n8nEnvironment();
    const fromLab = n8nOwnEnv();
    const address = (service: string) => `$(${service.toUpperCase().replaceAll('-', '_')}_SERVICE_HOST)`;
    const host = String(n8nEnv.DB_POSTGRESDB_HOST);
    expect(fromLab.DB_POSTGRESDB_HOST).toBe(address(host));
    const url = new URL(interpolate(String(n8nEnv.MOCK_API_URL)));
    expect(fromLab.MOCK_API_URL).toBe(`${url.protocol}//${address(url.hostname)}:${url.port}`);
    for (const [service, port] of [
      [host, Number(n8nEnv.DB_POSTGRESDB_PORT)],
      [url.hostname, Number(url.port)],
    ] as const) {
      const s = ofNs().find((o) => o.kind === 'Service' && o.metadata.name === service);
      expect(s?.spec.ports[0].port, service).toBe(port);
    }
  });

  it("a trainee's URLs are the Ingress's", () => {
    const labSettings = ofNs().find(
      (o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('lab-settings-'),
    )?.data;
    expect(labSettings).toMatchObject({
      WEBHOOK_URL: 'http://n8n-alice.lab.example.org/',
      N8N_PUBLIC_URL: 'http://n8n-alice.lab.example.org',
      LAB_MODE: 'exercise',
    });
  });

  it("the workflows in the ConfigMap are the repository's, byte for byte", () => {
    const data = ofNs().find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('lab-workflows-'))
      ?.data as Record<string, string>;
    expect(Object.keys(data).sort()).toEqual([
      'suspicious-login-response.json',
      'suspicious-login-rollback.json',
    ]);
    for (const [file, text] of Object.entries(data))
      expect(text).toBe(readFileSync(`${ROOT}docker/workflows/${file}`, 'utf8'));
  });
});
