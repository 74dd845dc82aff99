/**
 * `make k8s-render` as a trainer uses it, against the stand-in kubectl: the manifests in a private file
 * (labs/k8s/class.yaml) and nothing on standard output, a namespace per name, each lab's secrets kept, or
 * read back from the cluster when its namespace exists there, never made anew against its database; its
 * ports kept; the hand-out private; the image by tag or digest, with a registry login when asked; an Ingress
 * per trainee when asked; and one-line refusals.
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ANSWERS, documents, type K8sObject, render, STAND_IN_BIN } from './render.js';

const secretsOf = (labDir: string, name: string) =>
  readFileSync(join(labDir, 'labs/k8s', name, 'secrets.env'), 'utf8');
const configMap = (objects: K8sObject[], ns: string, prefix: string) =>
  objects.find(
    (o) => o.kind === 'ConfigMap' && o.metadata.namespace === ns && o.metadata.name.startsWith(prefix),
  )?.data;
const find = (objects: K8sObject[], ns: string, kind: string, name: string) =>
  objects.find((o) => o.kind === kind && o.metadata.namespace === ns && o.metadata.name === name);
const mode = (file: string) => statSync(file).mode & 0o777;
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
};

/** The cluster's answers, with `alice` already running there and her Secret as the API server gives it. */
function clusterWithAlice(secret: string): string {
  const dir = tempDir('k8s-answers-');
  cpSync(ANSWERS, dir, { recursive: true });
  writeFileSync(join(dir, 'namespaces'), 'soar-lab-alice\n');
  mkdirSync(join(dir, 'soar-lab-alice'));
  if (secret) writeFileSync(join(dir, 'soar-lab-alice/lab-secrets'), secret);
  return dir;
}
/** An older lab's Secret: without the console's secret (added since), with the queue's Redis password. */
const ALICE_ON_CLUSTER =
  'N8N_ENCRYPTION_KEY=aa\nN8N_OWNER_EMAIL=alice@soar-lab.test\nN8N_OWNER_PASSWORD=Lab-000000000000-Aa1\n' +
  'POSTGRES_PASSWORD=the-first-one\nREDIS_PASSWORD=the-queue-one\n';

describe('make k8s-render', () => {
  it('writes the manifests to a private file, prints none, and says where they and the hand-out are', () => {
    const run = render('# the Tuesday class\nalice\n\nbob   # late\n');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    const objects = documents(run.manifests);
    expect(objects.filter((o) => o.kind === 'Namespace').map((o) => o.metadata.name)).toEqual([
      'soar-lab-alice',
      'soar-lab-bob',
    ]);
    expect(
      objects.every((o) => o.kind === 'Namespace' || /^soar-lab-(alice|bob)$/.test(o.metadata.namespace)),
    ).toBe(true);
    expect(mode(join(run.labDir, 'labs/k8s/class.yaml'))).toBe(0o600);
    expect(mode(join(run.labDir, 'labs/k8s'))).toBe(0o700);
    expect(run.stderr.trim()).toBe(
      'lab: rendered 2 lab(s), namespaces soar-lab-<name>, to labs/k8s/class.yaml (private: it holds their Secrets; kubectl apply -f it); the hand-out is in labs/k8s/roster.txt',
    );
  });

  it("keeps each lab's secrets and ports on a second render, and gives a new name the next free ports", () => {
    const first = render('alice\nbob\n');
    const secrets = secretsOf(first.labDir, 'alice');
    const again = render('carol\nbob\nalice\n', {}, first.labDir);
    expect(again.code, again.stderr).toBe(0);
    expect(secretsOf(first.labDir, 'alice')).toBe(secrets);
    const objects = documents(again.manifests);
    expect(configMap(objects, 'soar-lab-alice', 'lab-settings-')?.WEBHOOK_URL).toBe('http://127.0.0.1:5679/');
    expect(configMap(objects, 'soar-lab-bob', 'lab-settings-')?.WEBHOOK_URL).toBe('http://127.0.0.1:5680/');
    expect(configMap(objects, 'soar-lab-carol', 'lab-settings-')?.WEBHOOK_URL).toBe('http://127.0.0.1:5681/');
    expect(secretsOf(first.labDir, 'carol')).not.toBe(secrets);
  });

  it('makes every secret a lab needs, and no other, private', () => {
    const run = render('alice\n');
    const text = secretsOf(run.labDir, 'alice');
    for (const key of ['N8N_ENCRYPTION_KEY', 'POSTGRES_PASSWORD', 'CONSOLE_SECRET'])
      expect(text).toMatch(new RegExp(`^${key}=[0-9a-f]{24,64}$`, 'm'));
    expect(mode(join(run.labDir, 'labs/k8s/alice/secrets.env'))).toBe(0o600);
    const secret = find(documents(run.manifests), 'soar-lab-alice', 'Secret', 'lab-secrets');
    expect(Object.keys(secret?.data ?? {}).sort()).toEqual([
      'CONSOLE_SECRET',
      'N8N_ENCRYPTION_KEY',
      'N8N_OWNER_EMAIL',
      'N8N_OWNER_PASSWORD',
      'POSTGRES_PASSWORD',
    ]);
  });

  it("drops the queue's Redis password from a lab rendered before n8n's regular mode, keeping the rest", () => {
    const first = render('alice\n');
    const file = join(first.labDir, 'labs/k8s/alice/secrets.env');
    const before = secretsOf(first.labDir, 'alice');
    writeFileSync(file, `${before}REDIS_PASSWORD=${'0'.repeat(48)}\n`);
    const again = render('alice\n', {}, first.labDir);
    expect(again.code, again.stderr).toBe(0);
    expect(secretsOf(first.labDir, 'alice')).toBe(before);
    expect(mode(file)).toBe(0o600);
    const secret = find(documents(again.manifests), 'soar-lab-alice', 'Secret', 'lab-secrets');
    expect(Object.keys(secret?.data ?? {})).not.toContain('REDIS_PASSWORD');
  });

  it('control: a secrets file with the password left in would carry it into the Secret', () => {
    const first = render('alice\n');
    const dir = join(first.labDir, 'labs/k8s/alice');
    writeFileSync(join(dir, 'secrets.env'), `${secretsOf(first.labDir, 'alice')}REDIS_PASSWORD=x\n`);
    const run = spawnSync(join(STAND_IN_BIN, 'kubectl'), ['kustomize', dir], {
      env: { ...process.env, K8S_ANSWERS: ANSWERS },
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    const secret = find(documents(run.stdout), 'soar-lab-alice', 'Secret', 'lab-secrets');
    expect(Object.keys(secret?.data ?? {})).toContain('REDIS_PASSWORD');
  });

  it("reads a running lab's secrets back from the cluster instead of making new ones (another checkout)", () => {
    const run = render('alice\nbob\n', { K8S_ANSWERS: clusterWithAlice(ALICE_ON_CLUSTER) });
    expect(run.code, run.stderr).toBe(0);
    const text = secretsOf(run.labDir, 'alice');
    expect(text).toContain('POSTGRES_PASSWORD=the-first-one\n');
    expect(text).toContain('N8N_OWNER_PASSWORD=Lab-000000000000-Aa1\n');
    // The console's secret, which the older lab lacks, is made; the queue's password is not kept.
    expect(text).toMatch(/^CONSOLE_SECRET=[0-9a-f]{24}$/m);
    expect(text).not.toContain('REDIS_PASSWORD');
    expect(mode(join(run.labDir, 'labs/k8s/alice/secrets.env'))).toBe(0o600);
    const secret = find(documents(run.manifests), 'soar-lab-alice', 'Secret', 'lab-secrets');
    expect(Buffer.from(String(secret?.data.POSTGRES_PASSWORD), 'base64').toString()).toBe('the-first-one');
    expect(secretsOf(run.labDir, 'bob')).toMatch(/^POSTGRES_PASSWORD=[0-9a-f]{48}$/m);
  });

  it("control: without the cluster's answer the same lab would get a new database password", () => {
    const run = render('alice\n');
    expect(secretsOf(run.labDir, 'alice')).not.toContain('the-first-one');
  });

  it("refuses, writing nothing, when a running lab's Secret cannot be read back", () => {
    const run = render('alice\n', { K8S_ANSWERS: clusterWithAlice('') });
    expect(run.code).not.toBe(0);
    expect(run.manifests).toBe('');
    expect(run.stderr).toContain(
      'lab: soar-lab-alice exists, but its Secret lab-secrets could not be read back',
    );
    expect(readdirSync(join(run.labDir, 'labs/k8s/alice'))).not.toContain('secrets.env');
  });

  it('writes the hand-out private, with the port-forward lines and the login', () => {
    const run = render('alice\n');
    const handout = join(run.labDir, 'labs/k8s/roster.txt');
    expect(mode(handout)).toBe(0o600);
    const text = readFileSync(handout, 'utf8');
    expect(text).toContain('kubectl -n soar-lab-alice port-forward svc/n8n 5679:5678');
    expect(text).toContain('kubectl -n soar-lab-alice port-forward svc/console 8089:8088');
    expect(text).toMatch(
      /editor {2}http:\/\/127\.0\.0\.1:5679 {2}login alice@soar-lab\.test \/ Lab-[0-9a-f]{12}-Aa1/,
    );
    expect(text).toMatch(/console http:\/\/127\.0\.0\.1:8089 {2}secret [0-9a-f]{24}/);
  });

  it("takes the lab mode, the image and the pod network on make's command line, as docs/kubernetes.md gives them", () => {
    const run = render('alice\n', { K8S_IMAGE: '' }, undefined, [
      'LAB_MODE=demo',
      'K8S_IMAGE=registry.example/soar-lab/mock-api:1.2.0',
      'K8S_POD_CIDR=10.244.0.0/16',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const objects = documents(run.manifests);
    expect(configMap(objects, 'soar-lab-alice', 'lab-settings-')).toMatchObject({
      LAB_MODE: 'demo',
      ALLOWED_CLIENTS: '10.244.0.0/16,127.0.0.1/32',
    });
    const pod = find(objects, 'soar-lab-alice', 'Deployment', 'mock-api')?.spec.template.spec;
    const images = [...pod.initContainers, ...pod.containers].map((c: K8sObject) => c.image);
    expect(new Set(images)).toEqual(new Set(['registry.example/soar-lab/mock-api:1.2.0']));
    expect(pod.imagePullSecrets).toBeUndefined();
  });

  it.each([
    [
      'a registry with a port',
      'registry.example:5000/soar/mock-api:1.0.0',
      'registry.example:5000/soar/mock-api:1.0.0',
    ],
    [
      'a digest',
      `registry.example/soar/mock-api@sha256:${'a'.repeat(64)}`,
      `registry.example/soar/mock-api@sha256:${'a'.repeat(64)}`,
    ],
    [
      'a tag and a digest (the digest decides)',
      `r.example/mock-api:1.0.0@sha256:${'b'.repeat(64)}`,
      `r.example/mock-api@sha256:${'b'.repeat(64)}`,
    ],
  ])('takes an image with %s', (_, image, expected) => {
    const run = render('alice\n', { K8S_IMAGE: image });
    expect(run.code, run.stderr).toBe(0);
    expect(run.manifests).toContain(`image: ${expected}\n`);
  });

  it("adds a registry login to the lab image's pod when K8S_PULL_SECRET names one", () => {
    const login = join(tempDir('k8s-login-'), 'config.json');
    writeFileSync(login, JSON.stringify({ auths: { 'registry.example': { auth: 'dTpw' } } }));
    const run = render('alice\n', { K8S_PULL_SECRET: login });
    expect(run.code, run.stderr).toBe(0);
    const objects = documents(run.manifests);
    const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.name.startsWith('lab-registry-'));
    expect(secret?.type).toBe('kubernetes.io/dockerconfigjson');
    expect(Buffer.from(String(secret?.data['.dockerconfigjson']), 'base64').toString()).toBe(
      readFileSync(login, 'utf8'),
    );
    const pod = find(objects, 'soar-lab-alice', 'Deployment', 'mock-api')?.spec.template.spec;
    expect(pod.imagePullSecrets).toEqual([{ name: secret?.metadata.name }]);
    expect(mode(join(run.labDir, 'labs/k8s/alice/registry.json'))).toBe(0o600);
  });

  it('with K8S_HOST: an Ingress per trainee, and the URLs and allowed hosts are its', () => {
    const run = render('alice\n', {}, undefined, ['K8S_HOST=lab.example.org', 'K8S_INGRESS_CLASS=nginx']);
    expect(run.code, run.stderr).toBe(0);
    const objects = documents(run.manifests);
    const ingress = find(objects, 'soar-lab-alice', 'Ingress', 'lab');
    expect(ingress?.spec.ingressClassName).toBe('nginx');
    expect(
      ingress?.spec.rules.map((r: K8sObject) => {
        const { service } = r.http.paths[0].backend;
        return `${r.host} -> ${service.name}:${service.port.number}`;
      }),
    ).toEqual(['n8n-alice.lab.example.org -> n8n:5678', 'console-alice.lab.example.org -> console:8088']);
    expect(configMap(objects, 'soar-lab-alice', 'lab-settings-')).toMatchObject({
      WEBHOOK_URL: 'http://n8n-alice.lab.example.org/',
      N8N_EDITOR_BASE_URL: 'http://n8n-alice.lab.example.org/',
      N8N_PUBLIC_URL: 'http://n8n-alice.lab.example.org',
      CONSOLE_ALLOWED_HOSTS: 'console-alice.lab.example.org',
      CONSOLE_LAB: 'alice',
      CONSOLE_PUBLISHED_PORT: '80',
    });
    const handout = readFileSync(join(run.labDir, 'labs/k8s/roster.txt'), 'utf8');
    expect(handout).toContain('editor  http://n8n-alice.lab.example.org  login alice@soar-lab.test');
    expect(handout).not.toContain('port-forward');
  });

  it('control: without K8S_HOST there is no Ingress and the console answers loopback only', () => {
    const objects = documents(render('alice\n').manifests);
    expect(objects.some((o) => o.kind === 'Ingress')).toBe(false);
    expect(configMap(objects, 'soar-lab-alice', 'lab-settings-')).toMatchObject({
      CONSOLE_ALLOWED_HOSTS: '',
      // Its cookie: the lab's name and its port-forward's port (slot_console_port).
      CONSOLE_LAB: 'alice',
      CONSOLE_PUBLISHED_PORT: '8089',
    });
  });

  it.each([
    ['an invalid name, with its line', 'alice\nBob!\n', {}, /line 2: 'Bob!' is not a lab name/],
    ['a name given twice', 'alice\nalice\n', {}, /line 2: 'alice' is named twice/],
    ['an empty roster', '# nobody yet\n', {}, /names nobody/],
    ['a lab mode that is none', 'alice\n', { LAB_MODE: 'test' }, /LAB_MODE=test is not a lab mode/],
    [
      'no image',
      'alice\n',
      { K8S_IMAGE: '' },
      /K8S_IMAGE is needed: where the cluster pulls the lab's image, with a tag or a digest/,
    ],
    [
      'an image without a tag',
      'alice\n',
      { K8S_IMAGE: 'soar-lab/mock-api' },
      /K8S_IMAGE=soar-lab\/mock-api is not an image with a tag or a digest/,
    ],
    [
      'a short digest',
      'alice\n',
      { K8S_IMAGE: 'r.example/m@sha256:abc' },
      /is not an image with a tag or a digest/,
    ],
    [
      'a registry login that is none',
      'alice\n',
      { K8S_PULL_SECRET: '/nonexistent' },
      /K8S_PULL_SECRET=\/nonexistent is not a registry login file/,
    ],
    [
      'a host that is no domain',
      'alice\n',
      { K8S_HOST: 'lab_example' },
      /K8S_HOST=lab_example is not a domain/,
    ],
    [
      'a controller label that is none',
      'alice\n',
      { K8S_HOST: 'lab.example.org', K8S_INGRESS_POD_LABEL: 'nginx' },
      /K8S_INGRESS_POD_LABEL=nginx is not one label/,
    ],
    [
      'a cluster it cannot reach',
      'alice\n',
      { K8S_ANSWERS: join(ANSWERS, '../unreachable') },
      /cannot ask the cluster kubectl points at .*\(The connection to the server 127\.0\.0\.1:6443 was refused/,
    ],
  ])('refuses %s in one line, writing no manifest', (_, roster, env, message) => {
    const run = render(roster, env as Record<string, string>);
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.manifests).toBe('');
    expect(run.stderr).toMatch(message);
    expect(
      run.stderr
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('make: ***')),
    ).toHaveLength(1);
  });

  it('refuses without kubectl, naming what it needs', () => {
    // Everything of /usr/bin but kubectl.
    const bin = tempDir('k8s-bin-');
    for (const f of readdirSync('/usr/bin'))
      if (f !== 'kubectl') symlinkSync(join('/usr/bin', f), join(bin, f));
    const run = render('alice\n', { PATH: bin });
    expect(run.code).not.toBe(0);
    expect(run.manifests).toBe('');
    expect(run.stderr).toContain("rendering needs kubectl on this machine, pointed at the class's cluster");
  });
});
