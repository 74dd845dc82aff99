#!/usr/bin/env bash
# `make k8s-render ROSTER=class.txt`: a class on Kubernetes, one namespace per trainee of the roster (the
# classroom's roster file), printed to standard output for `kubectl apply -f -`. Per trainee it writes an
# overlay of deploy/kubernetes/base in labs/k8s/<name>/ (the namespace, the lab's settings, its secrets,
# made once and kept, and the workflows) and renders it with kubectl's kustomize (or kustomize's own
# command). The hand-out, with each trainee's port-forward lines and login, goes to labs/k8s/roster.txt.
#
# Settings: LAB_MODE (exercise|demo, for the whole class), K8S_IMAGE (where the cluster pulls the lab's
# image; default soar-lab/mock-api:1.0.0), K8S_POD_CIDR (the cluster's pod network: narrows the mock API's
# own source check), APPROVAL_TIMEOUT_SECONDS. Developer setting: LAB_DIR (where labs/ is written).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../../docker/lab/common.sh
. "$ROOT/docker/lab/common.sh"
# shellcheck source=../../docker/lab/settings.sh
. "$ROOT/docker/lab/settings.sh"
# shellcheck source=../../docker/lab/class.sh
. "$ROOT/docker/lab/class.sh"
# shellcheck source=overlay.sh
. "$ROOT/deploy/kubernetes/overlay.sh"

ROSTER=${1:-${ROSTER:-}}
[ -n "$ROSTER" ] || die "ROSTER is needed: make k8s-render ROSTER=class.txt (one trainee name a line)"
NAMES=$(roster_names "$ROSTER") || exit 1
[ -n "$NAMES" ] || die "ROSTER=$ROSTER names nobody"
mapfile -t CLASS <<<"$NAMES"

K8S_MODE=${LAB_MODE:-exercise}
case "$K8S_MODE" in exercise | demo) ;; *) die "LAB_MODE=$K8S_MODE is not a lab mode: exercise or demo" ;; esac
K8S_IMAGE=${K8S_IMAGE:-soar-lab/mock-api:1.0.0}
[[ $K8S_IMAGE =~ ^[a-z0-9][a-z0-9._/:-]*:[A-Za-z0-9_][A-Za-z0-9._-]*$ ]] ||
  die "K8S_IMAGE=$K8S_IMAGE is not an image with a tag (e.g. registry.example/soar-lab/mock-api:1.0.0)"
K8S_POD_CIDR=${K8S_POD_CIDR:-10.0.0.0/8,172.16.0.0/12,192.168.0.0/16}
APPROVAL_TIMEOUT_SECONDS=${APPROVAL_TIMEOUT_SECONDS:-120}
in_range "$APPROVAL_TIMEOUT_SECONDS" 1 3600 ||
  die "APPROVAL_TIMEOUT_SECONDS=$APPROVAL_TIMEOUT_SECONDS is not a whole number of seconds from 1 to 3600"

if command -v kubectl >/dev/null 2>&1; then
  KUSTOMIZE=(kubectl kustomize)
elif command -v kustomize >/dev/null 2>&1; then
  KUSTOMIZE=(kustomize build)
else
  die "rendering needs kubectl (its kustomize) or kustomize on this machine: the one you deploy with"
fi

K8S_DIR=$LAB_DIR/labs/k8s
mkdir -p "$K8S_DIR"
sep=""
for name in "${CLASS[@]}"; do
  write_overlay "$name"
  printf '%s' "$sep"
  "${KUSTOMIZE[@]}" "$K8S_DIR/$name" || die "kustomize could not render the lab of $name ($K8S_DIR/$name)"
  sep=$'---\n'
done
write_handout "${CLASS[@]}"
say "rendered ${#CLASS[@]} lab(s) in namespaces ${K8S_PREFIX}<name>; the hand-out is in ${K8S_DIR#"$LAB_DIR"/}/roster.txt" >&2
