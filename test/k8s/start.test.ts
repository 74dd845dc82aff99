/**
 * How a rendered lab starts and stays up on a cluster: n8n waits for Postgres (compose.yaml's
 * service_healthy), and nothing else of the lab (no worker, no queue: n8n's regular mode); every container
 * has startup, readiness and liveness probes; the set-up keeps the lab's key in the Secret lab-api-key with
 * a token only it mounts, allowed that one Secret only, and the console starts with or without a key. Each
 * check returns what it finds wrong, so that each is shown to fail on a manifest broken on purpose.
 */
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { documents, type K8sObject, podTemplate, ROOT, render, WORKLOAD_KINDS } from './render.js';

const NS = 'soar-lab-alice';
let objects: K8sObject[];
beforeAll(() => {
  const run = render('alice\n');
  expect(run.code, run.stderr).toBe(0);
  objects = documents(run.manifests);
});
const get = (kind: string, name: string) =>
  structuredClone(
    objects.find((o) => o.kind === kind && o.metadata.namespace === NS && o.metadata.name === name),
  ) as K8sObject;
const spec = (o: K8sObject) => podTemplate(o).spec;
const envOf = (c: K8sObject, name: string) => (c.env ?? []).find((e: K8sObject) => e.name === name);

/**
 * n8n's pod waits for the database, at its Service's address (n8n's pod has no DNS: names.test.ts) and
 * port, and for nothing else.
 */
function startOrderViolations(o: K8sObject): string[] {
  const out: string[] = [];
  const init: K8sObject[] = spec(o).initContainers ?? [];
  const [pg] = init;
  if (init.map((c) => c.name).join() !== 'wait-for-postgres')
    out.push(
      `${o.metadata.name}: waits for ${init.map((c) => c.name).join(', ') || 'nothing'}, not postgres alone`,
    );
  if (
    !/pg_isready .*-h "\$PGHOST" -p 5432/.test(pg?.command?.join(' ') ?? '') ||
    envOf(pg ?? {}, 'PGHOST')?.value !== '$(POSTGRES_SERVICE_HOST)'
  )
    out.push(`${o.metadata.name}: does not ask postgres:5432 whether it accepts connections`);
  return out;
}

/** Every long-running container is started, taken out of its Service, and restarted by probes. */
function probeViolations(o: K8sObject): string[] {
  return (spec(o).containers as K8sObject[]).flatMap((c) =>
    ['startupProbe', 'readinessProbe', 'livenessProbe']
      .filter((p) => c[p] === undefined)
      .map((p) => `${o.metadata.name}/${c.name}: no ${p}`),
  );
}

/**
 * The lab's parts, by their pods' component label: n8n's regular mode runs in one pod with its database,
 * and no worker or queue is left over (nor a secret of theirs).
 */
function partsViolations(objects: K8sObject[]): string[] {
  const out: string[] = [];
  const ours = objects.filter((o) => o.metadata?.namespace === NS);
  const components = ours
    .filter((o) => WORKLOAD_KINDS.includes(o.kind))
    .map((o) => podTemplate(o).labels['app.kubernetes.io/component'])
    .sort();
  if (components.join() !== 'mock-api,n8n,postgres') out.push(`the lab's pods are ${components.join(', ')}`);
  const n8n = ours.find((o) => o.kind === 'Deployment' && o.metadata.name === 'n8n');
  if (n8n && spec(n8n).containers[0].args !== undefined)
    out.push(`n8n: runs ${spec(n8n).containers[0].args.join(' ')}, not n8n's own start`);
  const text = JSON.stringify(ours);
  for (const gone of ['n8n-worker', 'redis', 'REDIS_PASSWORD', 'QUEUE_BULL'])
    if (text.toLowerCase().includes(gone.toLowerCase())) out.push(`${gone} is still named`);
  return out;
}

/** The set-up alone holds a token, allowed to read and patch the key's Secret only; the console reads it. */
function setupViolations(
  pod: K8sObject,
  role: K8sObject,
  binding: K8sObject,
  keySecret: K8sObject | undefined,
) {
  const out: string[] = [];
  const s = spec(pod);
  const tokenVolumes = (s.volumes ?? [])
    .filter((v: K8sObject) => (v.projected?.sources ?? []).some((p: K8sObject) => p.serviceAccountToken))
    .map((v: K8sObject) => v.name);
  for (const c of [...s.initContainers, ...s.containers] as K8sObject[]) {
    const mounts = (c.volumeMounts ?? []).filter((m: K8sObject) => tokenVolumes.includes(m.name));
    if (c.name === 'n8n-setup' ? mounts.length !== 1 : mounts.length > 0)
      out.push(`${c.name}: ${c.name === 'n8n-setup' ? 'has no' : 'mounts the'} service-account token`);
  }
  const setup = s.initContainers.find((c: K8sObject) => c.name === 'n8n-setup');
  if (setup?.command?.join(' ') !== 'node dist/app/n8n/cli.js k8s-init')
    out.push('n8n-setup: not cli.js k8s-init');
  if (envOf(setup, 'LAB_KEY_SECRET')?.value !== 'lab-api-key') out.push('n8n-setup: keeps the key elsewhere');
  if (s.serviceAccountName !== 'lab-setup' || s.automountServiceAccountToken !== false)
    out.push('the pod: not lab-setup, or its token mounted everywhere');
  const rules = JSON.stringify(role.rules);
  const allowed = [
    { apiGroups: [''], resources: ['secrets'], resourceNames: ['lab-api-key'], verbs: ['get', 'patch'] },
  ];
  if (!isDeepStrictEqual(role.rules, allowed))
    out.push(`the Role allows more than the key's Secret: ${rules}`);
  if (binding.roleRef.name !== 'lab-setup' || binding.subjects?.[0]?.name !== 'lab-setup')
    out.push('the RoleBinding binds something else');
  if (!keySecret) out.push('no Secret lab-api-key');
  else if (keySecret.data !== undefined || keySecret.stringData !== undefined)
    out.push('lab-api-key is rendered with data: applying the class again would overwrite the kept key');
  const console = s.containers.find((c: K8sObject) => c.name === 'console');
  const key = envOf(console, 'N8N_API_KEY')?.valueFrom?.secretKeyRef;
  if (key?.name !== 'lab-api-key' || key?.key !== 'N8N_API_KEY' || key?.optional !== true)
    out.push('console: does not take the kept key, or cannot start without one');
  if (JSON.stringify(s).includes('N8N_API_KEY_FILE')) out.push('a key file is still named');
  return out;
}

describe('the parts of a lab', () => {
  it("n8n in its regular mode, its database and the mock API's pod: no worker, no queue", () => {
    expect(partsViolations(objects)).toEqual([]);
  });

  it.each([
    [
      'a worker beside n8n',
      (all: K8sObject[]) => {
        const n8n = all.find((o) => o.kind === 'Deployment' && o.metadata.name === 'n8n');
        const worker = structuredClone(n8n) as K8sObject;
        worker.metadata.name = 'n8n-worker';
        podTemplate(worker).labels['app.kubernetes.io/component'] = 'n8n-worker';
        spec(worker).containers[0].args = ['worker', '--concurrency=5'];
        all.push(worker);
      },
      "the lab's pods are mock-api, n8n, n8n-worker, postgres",
    ],
    [
      'n8n started as a worker',
      (all: K8sObject[]) => {
        const n8n = all.find((o) => o.kind === 'Deployment' && o.metadata.name === 'n8n');
        spec(n8n as K8sObject).containers[0].args = ['worker'];
      },
      "n8n: runs worker, not n8n's own start",
    ],
    [
      "a queue's password left in n8n's environment",
      (all: K8sObject[]) => {
        const n8n = all.find((o) => o.kind === 'Deployment' && o.metadata.name === 'n8n');
        spec(n8n as K8sObject).containers[0].env.push({
          name: 'QUEUE_BULL_REDIS_PASSWORD',
          valueFrom: { secretKeyRef: { name: 'lab-secrets', key: 'REDIS_PASSWORD' } },
        });
      },
      'QUEUE_BULL is still named',
    ],
  ])('fails with %s', (_, breakIt, reason) => {
    const broken = structuredClone(objects);
    breakIt(broken);
    expect(partsViolations(broken).join('\n')).toContain(reason);
  });
});

describe('start order', () => {
  it('n8n waits for Postgres before it starts, and for nothing else', () => {
    expect(startOrderViolations(get('Deployment', 'n8n'))).toEqual([]);
    expect(get('Service', 'postgres').spec.ports[0].port).toBe(5432);
  });

  it("only n8n waits in an init container of its own (the mock API's set-up waits for n8n itself)", () => {
    const waiting = objects
      .filter((o) => WORKLOAD_KINDS.includes(o.kind) && o.metadata.namespace === NS)
      .filter((o) => (spec(o).initContainers ?? []).some((c: K8sObject) => c.name.startsWith('wait-for-')))
      .map((o) => o.metadata.name);
    expect(waiting).toEqual(['n8n']);
  });

  it.each([
    ['without the wait', (o: K8sObject) => spec(o).initContainers.pop(), 'not postgres alone'],
    [
      'waiting for the mock API too (the set-up in its pod waits for n8n: neither would start)',
      (o: K8sObject) =>
        spec(o).initContainers.push({ ...spec(o).initContainers[0], name: 'wait-for-mock-api' }),
      'not postgres alone',
    ],
    [
      'asking another host',
      (o: K8sObject) => (spec(o).initContainers[0].command[2] = 'pg_isready -h db'),
      'postgres:5432',
    ],
    [
      "asking another Service's address",
      (o: K8sObject) => (envOf(spec(o).initContainers[0], 'PGHOST').value = '$(MOCK_API_SERVICE_HOST)'),
      'postgres:5432',
    ],
  ])('fails %s', (_, breakIt, reason) => {
    const broken = get('Deployment', 'n8n');
    breakIt(broken);
    expect(startOrderViolations(broken).join('\n')).toContain(reason);
  });
});

describe('health', () => {
  it('every container of every workload has startup, readiness and liveness probes', () => {
    const workloads = objects.filter((o) => WORKLOAD_KINDS.includes(o.kind));
    expect(workloads).toHaveLength(3);
    expect(workloads.flatMap(probeViolations)).toEqual([]);
  });

  it.each(['startupProbe', 'readinessProbe', 'livenessProbe'])(
    'fails when the console loses its %s',
    (probe) => {
      const broken = get('Deployment', 'mock-api');
      delete spec(broken).containers[1][probe];
      expect(probeViolations(broken)).toEqual([`mock-api/console: no ${probe}`]);
    },
  );
});

describe("the set-up and the lab's key", () => {
  const parts = () =>
    [
      get('Deployment', 'mock-api'),
      get('Role', 'lab-setup'),
      get('RoleBinding', 'lab-setup'),
      get('Secret', 'lab-api-key'),
    ] as const;

  it('keeps the key in the Secret lab-api-key, with a token only it mounts, for that Secret only', () => {
    expect(setupViolations(...parts())).toEqual([]);
  });

  it.each([
    [
      'the console mounts the token',
      ([pod]: K8sObject[]) =>
        spec(pod as K8sObject).containers[1].volumeMounts.push({ name: 'api-token', mountPath: '/t' }),
      'console: mounts the service-account token',
    ],
    [
      'the Role may list every Secret',
      ([, role]: K8sObject[]) => (role as K8sObject).rules[0].verbs.push('list'),
      'the Role allows more',
    ],
    [
      'the Role names no Secret',
      ([, role]: K8sObject[]) => delete (role as K8sObject).rules[0].resourceNames,
      'the Role allows more',
    ],
    [
      'the key Secret rendered with data',
      ([, , , secret]: K8sObject[]) => ((secret as K8sObject).data = { N8N_API_KEY: '' }),
      'would overwrite the kept key',
    ],
    [
      'the console needs a key to start',
      ([pod]: K8sObject[]) =>
        (spec(pod as K8sObject).containers[1].env.find(
          (e: K8sObject) => e.name === 'N8N_API_KEY',
        ).valueFrom.secretKeyRef.optional = false),
      'cannot start without one',
    ],
    [
      'the set-up on the old command',
      ([pod]: K8sObject[]) => (spec(pod as K8sObject).initContainers[0].command[2] = 'init'),
      'not cli.js k8s-init',
    ],
  ])('fails when %s', (_, breakIt, reason) => {
    const broken = [...parts()];
    breakIt(broken);
    expect(
      setupViolations(...(broken as unknown as Parameters<typeof setupViolations>)).join('\n'),
    ).toContain(reason);
  });

  it("the command the set-up runs is one the lab's CLI knows", () => {
    expect(readFileSync(`${ROOT}app/n8n/cli.ts`, 'utf8')).toMatch(/case 'k8s-init':/);
  });
});
