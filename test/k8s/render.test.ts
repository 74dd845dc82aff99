/**
 * `make k8s-render ROSTER=...` as a trainer uses it: manifests only on standard output (ready for
 * `kubectl apply -f -`), a namespace per name, each lab's secrets made once and kept, its ports kept, the
 * hand-out private, the lab mode and the image as set, and one-line refusals.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documents, type K8sObject, render } from './render.js';

const secretsOf = (labDir: string, name: string) =>
  readFileSync(join(labDir, 'labs/k8s', name, 'secrets.env'), 'utf8');
const configMap = (objects: K8sObject[], ns: string, prefix: string) =>
  objects.find(
    (o) => o.kind === 'ConfigMap' && o.metadata.namespace === ns && o.metadata.name.startsWith(prefix),
  )?.data;

describe('make k8s-render', () => {
  it('prints only manifests, a namespace per trainee, and says where the hand-out is on stderr', () => {
    const run = render('# the Tuesday class\nalice\n\nbob   # late\n');
    expect(run.code, run.stderr).toBe(0);
    const objects = documents(run.stdout);
    expect(objects.filter((o) => o.kind === 'Namespace').map((o) => o.metadata.name)).toEqual([
      'soar-lab-alice',
      'soar-lab-bob',
    ]);
    expect(
      objects.every((o) => o.kind === 'Namespace' || /^soar-lab-(alice|bob)$/.test(o.metadata.namespace)),
    ).toBe(true);
    expect(run.stderr.trim()).toBe(
      'lab: rendered 2 lab(s) in namespaces soar-lab-<name>; the hand-out is in labs/k8s/roster.txt',
    );
  });

  it("keeps each lab's secrets and ports on a second render, and gives a new name the next free ports", () => {
    const first = render('alice\nbob\n');
    const secrets = secretsOf(first.labDir, 'alice');
    const again = render('carol\nbob\nalice\n', {}, first.labDir);
    expect(again.code, again.stderr).toBe(0);
    expect(secretsOf(first.labDir, 'alice')).toBe(secrets);
    const objects = documents(again.stdout);
    expect(configMap(objects, 'soar-lab-alice', 'lab-settings-')?.WEBHOOK_URL).toBe('http://127.0.0.1:5679/');
    expect(configMap(objects, 'soar-lab-bob', 'lab-settings-')?.WEBHOOK_URL).toBe('http://127.0.0.1:5680/');
    expect(configMap(objects, 'soar-lab-carol', 'lab-settings-')?.WEBHOOK_URL).toBe('http://127.0.0.1:5681/');
    expect(secretsOf(first.labDir, 'carol')).not.toBe(secrets);
  });

  it('writes the hand-out and the secrets private, with the port-forward lines and the login', () => {
    const run = render('alice\n');
    const handout = join(run.labDir, 'labs/k8s/roster.txt');
    expect(statSync(handout).mode & 0o777).toBe(0o600);
    expect(statSync(join(run.labDir, 'labs/k8s/alice/secrets.env')).mode & 0o777).toBe(0o600);
    const text = readFileSync(handout, 'utf8');
    expect(text).toContain('kubectl -n soar-lab-alice port-forward svc/n8n 5679:5678');
    expect(text).toContain('kubectl -n soar-lab-alice port-forward svc/console 8089:8088');
    expect(text).toMatch(
      /editor {2}http:\/\/127\.0\.0\.1:5679 {2}login alice@soar-lab\.test \/ Lab-[0-9a-f]{12}-Aa1/,
    );
    expect(text).toMatch(/console http:\/\/127\.0\.0\.1:8089 {2}secret [0-9a-f]{24}/);
  });

  it("takes the lab mode, the image and the pod network on make's command line, as docs/kubernetes.md gives them", () => {
    const run = render('alice\n', {}, undefined, [
      'LAB_MODE=demo',
      'K8S_IMAGE=registry.example/soar-lab/mock-api:1.0.0',
      'K8S_POD_CIDR=10.244.0.0/16',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const objects = documents(run.stdout);
    expect(configMap(objects, 'soar-lab-alice', 'lab-settings-')).toMatchObject({
      LAB_MODE: 'demo',
      ALLOWED_CLIENTS: '10.244.0.0/16,127.0.0.1/32',
    });
    const images = objects
      .filter((o) => o.kind === 'Deployment' && o.metadata.name === 'mock-api')
      .flatMap((o) =>
        [...o.spec.template.spec.initContainers, ...o.spec.template.spec.containers].map(
          (c: K8sObject) => c.image,
        ),
      );
    expect(new Set(images)).toEqual(new Set(['registry.example/soar-lab/mock-api:1.0.0']));
  });

  it('takes a registry with a port', () => {
    const run = render('alice\n', { K8S_IMAGE: 'registry.example:5000/soar/mock-api:1.0.0' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('image: registry.example:5000/soar/mock-api:1.0.0');
  });

  it.each([
    ['an invalid name, with its line', 'alice\nBob!\n', {}, /line 2: 'Bob!' is not a lab name/],
    ['a name given twice', 'alice\nalice\n', {}, /line 2: 'alice' is named twice/],
    ['an empty roster', '# nobody yet\n', {}, /names nobody/],
    ['a lab mode that is none', 'alice\n', { LAB_MODE: 'test' }, /LAB_MODE=test is not a lab mode/],
    [
      'an image without a tag',
      'alice\n',
      { K8S_IMAGE: 'soar-lab/mock-api' },
      /K8S_IMAGE=soar-lab\/mock-api is not an image with a tag/,
    ],
  ])('refuses %s in one line, printing no manifest', (_, roster, env, message) => {
    const run = render(roster, env as Record<string, string>);
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
    expect(
      run.stderr
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('make: ***')),
    ).toHaveLength(1);
  });

  it('refuses without kubectl or kustomize, naming what it needs', () => {
    // Everything of /usr/bin but kubectl and kustomize.
    const bin = mkdtempSync(join(tmpdir(), 'k8s-bin-'));
    for (const f of readdirSync('/usr/bin'))
      if (f !== 'kubectl' && f !== 'kustomize') symlinkSync(join('/usr/bin', f), join(bin, f));
    const run = render('alice\n', { PATH: bin });
    rmSync(bin, { recursive: true });
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('rendering needs kubectl (its kustomize) or kustomize on this machine');
  });
});
