/**
 * The Kubernetes schemas' verdict on a rendered object: kubernetes-models' validators, generated from
 * Kubernetes' own OpenAPI document, for every kind the class and k8s-verify's stranger use.
 */
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { Role, RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import { ConfigMap, Namespace, Pod, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import type { K8sObject } from './render.js';

/** A model's constructor, whatever the fields its kind requires. */
type Model = new (data: never) => { validate(): void };
const MODELS: Record<string, Model> = {
  'v1/Namespace': Namespace,
  'v1/Pod': Pod,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'rbac.authorization.k8s.io/v1/Role': Role,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding,
  'networking.k8s.io/v1/Ingress': Ingress,
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
};

/** The schema's verdict on one object: '' when it validates, else the first reason. */
export function schemaError(o: K8sObject): string {
  const Found = MODELS[`${o.apiVersion}/${o.kind}`];
  if (!Found) return `no schema for ${o.apiVersion}/${o.kind}`;
  const copy = structuredClone(o);
  // kustomize wraps a long Secret value's base64 at 70 columns; the API server decodes it with Go's
  // base64, which skips line breaks, so the schema sees it as the server does.
  if (o.kind === 'Secret')
    for (const [k, v] of Object.entries(copy.data ?? {})) copy.data[k] = String(v).replace(/\n/g, '');
  try {
    // The object is checked here, by the model's own validator: its type is what is being tested.
    new (Found as unknown as new (data: K8sObject) => { validate(): void })(copy).validate();
    return '';
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
