#!/usr/bin/env bash
# `make k8s-render ROSTER=class.txt K8S_IMAGE=...`: a class on Kubernetes, one namespace per trainee of the
# roster (the classroom's roster file), written to labs/k8s/class.yaml (private: it holds every lab's
# Secrets) for `kubectl apply -f`. Per trainee it writes an overlay of deploy/kubernetes/base in
# labs/k8s/<name>/ (the namespace, the lab's settings, its secrets, the workflows, Postgres's init script
# from docker/postgres/initdb/) and renders it with kubectl's kustomize. It asks the cluster kubectl points at for its API server's and DNS's addresses and,
# for a lab with no secrets here, whether its namespace exists there: then its secrets are read back, never
# made anew. The hand-out (port-forward lines or Ingress addresses, logins) goes to labs/k8s/roster.txt.
#
# Settings: K8S_IMAGE (needed: where the cluster pulls the lab's image, with a tag or a digest),
# K8S_PULL_SECRET (a registry login file, docker's config.json form), LAB_MODE (exercise|demo),
# K8S_HOST (a domain: an Ingress per trainee), K8S_INGRESS_CLASS, K8S_INGRESS_NAMESPACE,
# K8S_INGRESS_POD_LABEL (the controller's pods), K8S_POD_CIDR (the cluster's pod network: narrows the
# mock API's own source check), APPROVAL_TIMEOUT_SECONDS. Developer setting: LAB_DIR (where labs/ is
# written). TRACE=1 traces.
set -euo pipefail
[ -z "${TRACE:-}" ] || set -x

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../../docker/lab/common.sh
. "$ROOT/docker/lab/common.sh"
# shellcheck source=../../docker/lab/settings.sh
. "$ROOT/docker/lab/settings.sh"
# shellcheck source=../../docker/lab/class.sh
. "$ROOT/docker/lab/class.sh"
# shellcheck source=cluster.sh
. "$ROOT/deploy/kubernetes/cluster.sh"
# shellcheck source=overlay.sh
. "$ROOT/deploy/kubernetes/overlay.sh"

usage() {
  echo "usage: make k8s-render ROSTER=<file> K8S_IMAGE=<registry/name:tag or @sha256:...> [K8S_HOST=<domain>] [LAB_MODE=demo]"
  echo "       (docs/kubernetes.md has every setting)"
}
case "${1:-}" in -h | --help) usage; exit 0 ;; esac

ROSTER=${1:-${ROSTER:-}}
[ -n "$ROSTER" ] || die "ROSTER is needed: make k8s-render ROSTER=class.txt (one trainee name a line)"
NAMES=$(roster_names "$ROSTER") || exit 1
[ -n "$NAMES" ] || die "ROSTER=$ROSTER names nobody"
mapfile -t CLASS <<<"$NAMES"

K8S_MODE=${LAB_MODE:-$DEFAULT_LAB_MODE}
check_lab_mode "$K8S_MODE"

# The lab's image: published nowhere but where the trainer puts it (docs/kubernetes.md, "The lab's image").
K8S_IMAGE=${K8S_IMAGE:-}
[ -n "$K8S_IMAGE" ] ||
  die "K8S_IMAGE is needed: where the cluster pulls the lab's image, with a tag or a digest (e.g. registry.example/soar-lab/mock-api:1.2.0; docs/kubernetes.md, \"The lab's image\")"
image_re='^([a-z0-9][a-z0-9._-]*(:[0-9]+)?(/[a-z0-9][a-z0-9._-]*)*)(:([A-Za-z0-9_][A-Za-z0-9._-]{0,127}))?(@(sha256:[0-9a-f]{64}))?$'
if ! [[ $K8S_IMAGE =~ $image_re ]] || [ -z "${BASH_REMATCH[5]}${BASH_REMATCH[7]}" ]; then
  die "K8S_IMAGE=$K8S_IMAGE is not an image with a tag or a digest (e.g. registry.example/soar-lab/mock-api:1.2.0 or ...@sha256:<64 hex>)"
fi
K8S_IMAGE_NAME=${BASH_REMATCH[1]} K8S_IMAGE_TAG=${BASH_REMATCH[5]} K8S_IMAGE_DIGEST=${BASH_REMATCH[7]}
K8S_PULL_SECRET=${K8S_PULL_SECRET:-}
if [ -n "$K8S_PULL_SECRET" ]; then
  grep -qs '"auths"' "$K8S_PULL_SECRET" ||
    die "K8S_PULL_SECRET=$K8S_PULL_SECRET is not a registry login file with \"auths\" (docs/kubernetes.md, \"The lab's image\")"
fi

K8S_HOST=${K8S_HOST:-}
K8S_INGRESS_CLASS=${K8S_INGRESS_CLASS:-}
K8S_INGRESS_NAMESPACE=${K8S_INGRESS_NAMESPACE:-ingress-nginx}
K8S_INGRESS_POD_LABEL=${K8S_INGRESS_POD_LABEL:-app.kubernetes.io/name=ingress-nginx}
dns_name='[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?'
[ -z "$K8S_HOST" ] || [[ $K8S_HOST =~ ^$dns_name(\.$dns_name)+$ ]] ||
  die "K8S_HOST=$K8S_HOST is not a domain (e.g. lab.example.org: the labs are n8n-<name>.lab.example.org and console-<name>.lab.example.org)"
[[ $K8S_INGRESS_NAMESPACE =~ ^$dns_name$ ]] || die "K8S_INGRESS_NAMESPACE=$K8S_INGRESS_NAMESPACE is not a namespace"
[[ $K8S_INGRESS_POD_LABEL =~ ^[a-z0-9./-]+=[A-Za-z0-9._-]+$ ]] ||
  die "K8S_INGRESS_POD_LABEL=$K8S_INGRESS_POD_LABEL is not one label of the ingress controller's pods (key=value)"
[ -z "$K8S_INGRESS_CLASS" ] || [[ $K8S_INGRESS_CLASS =~ ^$dns_name$ ]] ||
  die "K8S_INGRESS_CLASS=$K8S_INGRESS_CLASS is not an IngressClass name"
K8S_POD_CIDR=${K8S_POD_CIDR:-10.0.0.0/8,172.16.0.0/12,192.168.0.0/16}
APPROVAL_TIMEOUT_SECONDS=${APPROVAL_TIMEOUT_SECONDS:-$DEFAULT_APPROVAL_TIMEOUT_SECONDS}
check_approval_timeout "$APPROVAL_TIMEOUT_SECONDS"

command -v kubectl >/dev/null 2>&1 ||
  die "rendering needs kubectl on this machine, pointed at the class's cluster (the one you deploy with)"

K8S_DIR=$LAB_DIR/labs/k8s
(umask 077 && mkdir -p "$K8S_DIR")
cluster_facts
OUT=$K8S_DIR/class.yaml
for name in "${CLASS[@]}"; do write_overlay "$name"; done
# The class as one kustomization of the trainees' overlays: one kustomize run, whatever the class's size.
{
  echo "# Written by make k8s-render: the class of $ROSTER, one overlay a trainee."
  echo "resources:"
  printf '  - %s\n' "${CLASS[@]}"
} >"$K8S_DIR/kustomization.yaml"
(umask 077 && kubectl kustomize "$K8S_DIR" >"$OUT.new") ||
  { rm -f "$OUT.new"; die "kustomize could not render the class ($K8S_DIR)"; }
mv "$OUT.new" "$OUT"
write_handout "${CLASS[@]}"
say "rendered ${#CLASS[@]} lab(s), namespaces ${K8S_PREFIX}<name>, to ${OUT#"$LAB_DIR"/} (private: it holds their Secrets; kubectl apply -f it); the hand-out is in ${K8S_DIR#"$LAB_DIR"/}/roster.txt" >&2
