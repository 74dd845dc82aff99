/**
 * docs/kubernetes.md, the trainer's guide to a class on Kubernetes, says what a trainer needs that no
 * render can check: the three ways to put the lab's image where the cluster finds it, what to back up,
 * what n8n's own Kubernetes examples are, and why n8n's pod has no DNS, with what that leaves (and never
 * that n8n's pod looks names up). Each check is shown to fail on a guide without it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROOT } from './render.js';

const guide = readFileSync(`${ROOT}docs/kubernetes.md`, 'utf8');

/** What the guide lacks of what a trainer needs. */
function gaps(text: string): string[] {
  const needs: [string, RegExp][] = [
    ['a registry push', /docker push registry\.example\/soar-lab\/mock-api:\d+\.\d+\.\d+/],
    ['kind load', /kind load docker-image soar-lab\/mock-api:\d+\.\d+\.\d+/],
    ['a k3s import', /k3s ctr images import/],
    ['a registry login', /K8S_PULL_SECRET=/],
    ['what to back up', /## What to back up[\s\S]*labs\/k8s\/[\s\S]*secrets\.env/],
    ['the manifests file kept private', /labs\/k8s\/class\.yaml` \(readable by you\s+only/],
    ['k8s-verify after apply', /kubectl apply -f labs\/k8s\/class\.yaml\nmake k8s-verify ROSTER=class\.txt/],
    [
      "why n8n's pod has no DNS, and what it leaves",
      /### n8n's names: no DNS at all\n[\s\S]*What it leaves:/,
    ],
    ['labs made before', /### Labs made before\n/],
  ];
  const out = needs.filter(([, re]) => !re.test(text)).map(([what]) => what);
  if (/n8n-hosting[^.]*kustomize base with overlays/.test(text.replace(/\s+/g, ' ')))
    out.push("n8n-hosting's examples called a kustomize base with overlays");
  if (/> class\.yaml/.test(text)) out.push('manifests redirected into a file with the default umask');
  if (/^\| n8n[^|]*\| port 53 /m.test(text)) out.push("n8n's pod looking names up");
  return out;
}

describe('docs/kubernetes.md', () => {
  it("gives the image's three ways, what to back up, and the check after apply", () => {
    expect(gaps(guide)).toEqual([]);
  });

  it.each([
    ['kind load', 'kind load docker-image', 'docker load'],
    ['a k3s import', 'k3s ctr images import', 'k3s import'],
    ['what to back up', '## What to back up', '## Backups'],
    ["why n8n's pod has no DNS, and what it leaves", 'What it leaves:', 'In short:'],
  ])('fails without %s', (what, from, to) => {
    expect(gaps(guide.replaceAll(from, to))).toContain(what);
  });

  it.each([
    [
      "n8n-hosting's examples called a kustomize base with overlays",
      "n8n's own Kubernetes examples (n8n-io/n8n-hosting, `kubernetes/`) are a kustomize base with overlays too.",
    ],
    [
      'manifests redirected into a file with the default umask',
      'make k8s-render ROSTER=class.txt > class.yaml',
    ],
    [
      "n8n's pod looking names up",
      '| n8n, the mock API pod | port 53 of: the pods in `kube-system` | service names |',
    ],
  ])('fails on a guide saying %s', (what, line) => {
    expect(gaps(`${guide}\n${line}\n`)).toContain(what);
  });
});
