/**
 * How a rendered lab starts and stays up on a cluster: n8n main and worker wait for Postgres and Redis
 * (compose.yaml's service_healthy); every container has startup, readiness and liveness probes; Redis has
 * the lab's password and n8n uses it; the set-up keeps the lab's key in the Secret lab-api-key with a token
 * only it mounts, allowed that one Secret only, and the console starts with or without a key. Each check
 * returns what it finds wrong, so that each is shown to fail on a manifest broken on purpose.
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
const fromSecret = (c: K8sObject, name: string, secret: string, key: string) =>
  envOf(c, name)?.valueFrom?.secretKeyRef?.name === secret &&
  envOf(c, name)?.valueFrom?.secretKeyRef?.key === key;

/** n8n's pods wait for the database and the queue, by the Services' names and ports, with Redis's password. */
function startOrderViolations(o: K8sObject): string[] {
  const out: string[] = [];
  const init: K8sObject[] = spec(o).initContainers ?? [];
  const [pg, redis] = init;
  if (init.map((c) => c.name).join() !== 'wait-for-postgres,wait-for-redis')
    out.push(`${o.metadata.name}: does not wait for postgres, then redis`);
  if (!/pg_isready .*-h postgres -p 5432/.test(pg?.command?.join(' ') ?? ''))
    out.push(`${o.metadata.name}: does not ask postgres:5432 whether it accepts connections`);
  if (!/redis-cli -h redis -p 6379 ping/.test(redis?.command?.join(' ') ?? ''))
    out.push(`${o.metadata.name}: does not ping redis:6379`);
  if (!redis || !fromSecret(redis, 'REDISCLI_AUTH', 'lab-secrets', 'REDIS_PASSWORD'))
    out.push(`${o.metadata.name}: pings Redis without its password`);
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

/** Redis asks for the lab's password; n8n main and worker give it. */
function redisPasswordViolations(redis: K8sObject, n8nPods: K8sObject[]): string[] {
  const out: string[] = [];
  const c = spec(redis).containers[0];
  const command: string[] = c.command ?? [];
  if (
    command[command.indexOf('--requirepass') + 1] !== '$(REDIS_PASSWORD)' ||
    !command.includes('--requirepass')
  )
    out.push('redis: no --requirepass $(REDIS_PASSWORD)');
  if (!fromSecret(c, 'REDIS_PASSWORD', 'lab-secrets', 'REDIS_PASSWORD'))
    out.push("redis: the password is not the lab's");
  for (const o of n8nPods)
    if (!fromSecret(spec(o).containers[0], 'QUEUE_BULL_REDIS_PASSWORD', 'lab-secrets', 'REDIS_PASSWORD'))
      out.push(`${o.metadata.name}: no QUEUE_BULL_REDIS_PASSWORD from the lab's secrets`);
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

describe('start order', () => {
  it('n8n main and worker wait for Postgres, then Redis, before they start', () => {
    for (const name of ['n8n', 'n8n-worker'])
      expect(startOrderViolations(get('Deployment', name))).toEqual([]);
    expect(get('Service', 'postgres').spec.ports[0].port).toBe(5432);
    expect(get('Service', 'redis').spec.ports[0].port).toBe(6379);
  });

  it.each([
    ['without the wait for Redis', (o: K8sObject) => spec(o).initContainers.pop(), 'redis'],
    [
      'asking another host',
      (o: K8sObject) => (spec(o).initContainers[0].command[2] = 'pg_isready -h db'),
      'postgres:5432',
    ],
    [
      'pinging without the password',
      (o: K8sObject) => delete spec(o).initContainers[1].env,
      'without its password',
    ],
  ])('fails %s', (_, breakIt, reason) => {
    const broken = get('Deployment', 'n8n-worker');
    breakIt(broken);
    expect(startOrderViolations(broken).join('\n')).toContain(reason);
  });
});

describe('health', () => {
  it('every container of every workload has startup, readiness and liveness probes', () => {
    const workloads = objects.filter((o) => WORKLOAD_KINDS.includes(o.kind));
    expect(workloads).toHaveLength(5);
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

describe("Redis's password", () => {
  const n8nPods = () => [get('Deployment', 'n8n'), get('Deployment', 'n8n-worker')];
  it("Redis asks for the lab's password and n8n main and worker give it (QUEUE_BULL_REDIS_PASSWORD)", () => {
    expect(redisPasswordViolations(get('Deployment', 'redis'), n8nPods())).toEqual([]);
    expect(get('Secret', 'lab-secrets').data.REDIS_PASSWORD).toMatch(/^[A-Za-z0-9+/=\n]{40,}$/);
  });

  it('fails on a Redis without a password, or an n8n without it', () => {
    const redis = get('Deployment', 'redis');
    spec(redis).containers[0].command = ['redis-server', '--save', '', '--appendonly', 'no'];
    expect(redisPasswordViolations(redis, n8nPods())).toEqual(['redis: no --requirepass $(REDIS_PASSWORD)']);
    const [main, worker] = n8nPods() as [K8sObject, K8sObject];
    spec(worker).containers[0].env = spec(worker).containers[0].env.filter(
      (e: K8sObject) => e.name !== 'QUEUE_BULL_REDIS_PASSWORD',
    );
    expect(redisPasswordViolations(get('Deployment', 'redis'), [main, worker])).toEqual([
      "n8n-worker: no QUEUE_BULL_REDIS_PASSWORD from the lab's secrets",
    ]);
  });
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
