#!/usr/bin/env bash
# `make k8s-verify ROSTER=class.txt`, after `kubectl apply`: checks the class on the cluster kubectl points
# at, and prints one line per failure. For each lab: its namespace is there, every part of it (Postgres,
# n8n, the mock API's pod) has a ready pod, and the set-up has kept the lab's key in its Secret; n8n's pod
# gets no answer from any DNS server, neither through its own resolver nor to a query written by hand to
# each address where the cluster answers lookups (a lookup of a workflow's choosing would carry data out),
# with the mock API's pod, which may look names up, as the control; and n8n's database role is no
# superuser. Then, for the class, a stranger: a pod in a namespace of its own (soar-lab-verify, removed
# after) tries every lab's mock API, Postgres, editor and console; each connection it opens is a failure,
# and all of them at once mean that the cluster's network plugin does not enforce NetworkPolicy.
# The stranger also dials the API server, as a control: a probe that reaches nothing proves nothing.
# Exit 0 when nothing failed, 1 otherwise. TRACE=1 traces.
set -euo pipefail
[ -z "${TRACE:-}" ] || set -x

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../../docker/lab/common.sh
. "$ROOT/docker/lab/common.sh"
# shellcheck source=../../docker/lab/settings.sh
. "$ROOT/docker/lab/settings.sh"
# shellcheck source=../../docker/lab/class.sh
. "$ROOT/docker/lab/class.sh"

case "${1:-}" in -h | --help) echo "usage: make k8s-verify ROSTER=<file> (after kubectl apply; docs/kubernetes.md)"; exit 0 ;; esac
ROSTER=${1:-${ROSTER:-}}
[ -n "$ROSTER" ] || die "ROSTER is needed: make k8s-verify ROSTER=class.txt (the class you rendered)"
NAMES=$(roster_names "$ROSTER") || exit 1
[ -n "$NAMES" ] || die "ROSTER=$ROSTER names nobody"
mapfile -t CLASS <<<"$NAMES"
command -v kubectl >/dev/null 2>&1 || die "k8s-verify needs kubectl, pointed at the class's cluster"

PREFIX=soar-lab-
PROBE_NS=soar-lab-verify
# The lab's parts, each with the label app.kubernetes.io/component on its pods.
PARTS="postgres n8n mock-api"
# What the stranger dials in each lab: service:port.
TARGETS="mock-api:8081 postgres:5432 n8n:5678 console:8088"
CONTROL=kubernetes.default.svc:443
# Where a cluster answers lookups (base/network-policies.yaml's `dns`): NodeLocal DNSCache, the metadata
# server (GKE's Cloud DNS), and the DNS Service's addresses, asked of the cluster below.
DNS_FIXED="169.254.20.10 169.254.169.254"
# Run with node in a lab's pod, the addresses as its arguments: a query through the pod's own resolver
# (its /etc/resolv.conf), then one written by hand to each address. "open" when any answer came back (a
# refusal or "no such name" too: the query got out and back), "closed" when none did.
LOOKUP_PROBE="const { Resolver } = require('node:dns').promises;
const ask = (server) => {
  const r = new Resolver({ timeout: 3000, tries: 1 });
  if (server !== 'resolver') r.setServers([server]);
  return r.resolve4('kubernetes.default.svc.cluster.local').then(() => 'open ' + server,
    (e) => (['ETIMEOUT', 'ECONNREFUSED'].includes(e.code) ? 'closed ' : 'open ') + server);
};
Promise.all(['resolver', ...process.argv.slice(1)].map(ask)).then((lines) => console.log(lines.join('\\n')));"
POD_TEMPLATE='{range .items[*]}{.metadata.labels.app\.kubernetes\.io/component}{" "}{.metadata.name}{" "}{.status.conditions[?(@.type=="Ready")].status}{" "}{.status.initContainerStatuses[*].state.waiting.reason}{" "}{.status.containerStatuses[*].state.waiting.reason}{"\n"}{end}'

FAILURES=0
fail() {
  echo "$*"
  FAILURES=$((FAILURES + 1))
}

# check_lab NAME: its namespace, a ready pod for each part, its key kept; then, with the parts ready, n8n's
# lookups and n8n's database role (a part not ready has its line already).
check_lab() {
  local name=$1 ns=$PREFIX$1 pods part line pod rest key ready=""
  if ! grep -qx "namespace/$ns" <<<"$NAMESPACES"; then
    fail "$name: no namespace $ns (kubectl apply -f labs/k8s/class.yaml first)"
    return 0
  fi
  if ! pods=$(kubectl -n "$ns" get pods -o "jsonpath=$POD_TEMPLATE"); then
    fail "$name: its pods could not be listed (kubectl -n $ns get pods)"
    return 0
  fi
  for part in $PARTS; do
    line=$(awk -v p="$part" '$1 == p && $3 == "True" { print; exit }' <<<"$pods")
    if [ -n "$line" ]; then ready+=" $part"; continue; fi
    line=$(awk -v p="$part" '$1 == p { print; exit }' <<<"$pods")
    if [ -z "$line" ]; then fail "$name: no pod of $part"; continue; fi
    read -r _ pod _ rest <<<"$line"
    fail "$name: $part not ready (pod $pod${rest:+: $rest}; kubectl -n $ns describe pod $pod)"
  done
  key=$(kubectl -n "$ns" get secret lab-api-key -o 'jsonpath={.data.N8N_API_KEY}' 2>/dev/null || true)
  [ -n "$key" ] || fail "$name: the lab's key for n8n's API is not kept (Secret lab-api-key is empty): kubectl -n $ns logs deploy/mock-api -c n8n-setup"
  [[ "$ready " != *" n8n "* || "$ready " != *" mock-api "* ]] || check_lookups "$name"
  [[ "$ready " != *" postgres "* ]] || check_role "$name"
}

# check_lookups NAME: n8n's pod gets no answer from any DNS server (its own resolver is loopback, and the
# policies let it reach none); the mock API's pod, which looks names up, must get one, or nothing is proven.
check_lookups() {
  local name=$1 ns=$PREFIX$1 n8n control verdict target
  # shellcheck disable=SC2086 # one argument an address
  if ! n8n=$(kubectl -n "$ns" exec deploy/n8n -c n8n -- node -e "$LOOKUP_PROBE" $DNS_ADDRESSES 2>/dev/null) ||
    ! control=$(kubectl -n "$ns" exec deploy/mock-api -c console -- node -e "$LOOKUP_PROBE" $DNS_ADDRESSES 2>/dev/null); then
    fail "$name: n8n's lookups not checked: kubectl -n $ns exec failed"
    return 0
  fi
  if ! grep -q '^open ' <<<"$control"; then
    fail "$name: n8n's lookups not checked: the mock API's pod got no answer from any DNS server either, so n8n's closed doors prove nothing"
    return 0
  fi
  while read -r verdict target; do
    [ "$verdict" = open ] || continue
    if [ "$target" = resolver ]; then
      fail "$name: n8n's pod resolves names (its resolver is not loopback alone: kubectl -n $ns get deploy n8n -o jsonpath='{.spec.template.spec.dnsConfig}')"
    else
      fail "$name: n8n's pod gets answers from the DNS server at $target (a workflow's lookups could carry data out: the network plugin does not enforce NetworkPolicy)"
    fi
  done <<<"$n8n"
}

# check_role NAME: n8n's database role is no superuser (over the database pod's socket, as n8n).
check_role() {
  local name=$1 ns=$PREFIX$1 super
  super=$(kubectl -n "$ns" exec postgres-0 -c postgres -- \
    psql -U n8n -d n8n -tAc "SELECT rolsuper FROM pg_roles WHERE rolname = 'n8n'" 2>/dev/null || true)
  case $super in
    f) ;;
    t) fail "$name: n8n's database role is a superuser (its database was made before the lab made n8n's role apart: docs/kubernetes.md, \"Labs made before\")" ;;
    *) fail "$name: n8n's database role not checked: kubectl -n $ns exec postgres-0 failed" ;;
  esac
}

# The stranger's pod: the lab's n8n image (Node), restricted as the labs are, dialling each address once.
probe_manifest() {
  local name target args="        - $CONTROL"
  for name in "${CLASS[@]}"; do
    for target in $TARGETS; do args+=$'\n'"        - ${target%%:*}.$PREFIX$name.svc:${target#*:}"; done
  done
  cat <<EOF
apiVersion: v1
kind: Namespace
metadata:
  name: $PROBE_NS
  labels:
    pod-security.kubernetes.io/enforce: restricted
---
apiVersion: v1
kind: Pod
metadata:
  name: stranger
  namespace: $PROBE_NS
spec:
  restartPolicy: Never
  automountServiceAccountToken: false
  securityContext:
    runAsNonRoot: true
    runAsUser: 1000
    seccompProfile: {type: RuntimeDefault}
  containers:
    - name: stranger
      image: n8nio/n8n:2.41.1
      command:
        - node
        - -e
        - |
          const net = require('node:net'), dns = require('node:dns').promises;
          const dial = async (t) => {
            const [host, port] = t.split(':');
            try { await dns.lookup(host); } catch { return 'unresolved ' + t; }
            return new Promise((done) => {
              const s = net.connect({ host, port: Number(port), timeout: 5000 });
              s.on('connect', () => { s.destroy(); done('open ' + t); });
              s.on('timeout', () => { s.destroy(); done('closed ' + t); });
              s.on('error', () => done('closed ' + t));
            });
          };
          Promise.all(process.argv.slice(1).map(dial)).then((lines) => console.log(lines.join('\n')));
$args
      securityContext:
        allowPrivilegeEscalation: false
        readOnlyRootFilesystem: true
        capabilities: {drop: [ALL]}
      resources:
        requests: {cpu: 50m, memory: 64Mi}
        limits: {cpu: 500m, memory: 256Mi}
EOF
}

# check_isolation: the stranger's verdicts, one failure line per connection it opened.
check_isolation() {
  local log verdict target service name
  # A stranger left by an earlier run goes first (a pod's command cannot be changed in place).
  kubectl delete namespace "$PROBE_NS" --ignore-not-found --timeout=120s >/dev/null 2>&1 || true
  trap 'kubectl delete namespace "$PROBE_NS" --ignore-not-found --wait=false >/dev/null 2>&1 || true' EXIT
  if ! probe_manifest | kubectl apply -f - >/dev/null; then
    fail "isolation not checked: the stranger's pod could not be made in $PROBE_NS"
    return 0
  fi
  if ! kubectl -n "$PROBE_NS" wait pod/stranger --for=jsonpath='{.status.phase}'=Succeeded --timeout=180s >/dev/null 2>&1; then
    fail "isolation not checked: the stranger's pod did not finish (kubectl -n $PROBE_NS describe pod stranger)"
    return 0
  fi
  log=$(kubectl -n "$PROBE_NS" logs pod/stranger)
  if ! grep -qx "open $CONTROL" <<<"$log"; then
    fail "isolation not checked: the stranger reached not even the API server, so its closed doors prove nothing"
    return 0
  fi
  while read -r verdict target; do
    [ "$target" != "$CONTROL" ] || continue
    service=${target%%.*} name=${target#*."$PREFIX"} name=${name%%.svc:*}
    case $verdict in
      open) fail "$name: a pod in another namespace reaches $service:${target##*:} (the network plugin does not enforce NetworkPolicy)" ;;
      unresolved) fail "$name: isolation not checked: the stranger could not look up ${target%:*}" ;;
    esac
  done <<<"$log"
}

NAMESPACES=$(kubectl get namespaces -o name 2>&1) ||
  die "cannot ask the cluster kubectl points at ($(head -n 1 <<<"$NAMESPACES"))"
DNS_SERVICE=$(kubectl get services -n kube-system -l k8s-app=kube-dns \
  -o 'jsonpath={range .items[*]}{.spec.clusterIP}{"\n"}{end}' 2>/dev/null || true)
DNS_ADDRESSES=$({ tr ' ' '\n' <<<"$DNS_FIXED"; echo "$DNS_SERVICE"; } | grep -E '^[0-9a-fA-F.:]+$' | sort -u | tr '\n' ' ')
for name in "${CLASS[@]}"; do check_lab "$name"; done
check_isolation
if [ "$FAILURES" -eq 0 ]; then
  say "verified ${#CLASS[@]} lab(s): every pod ready, every key kept, no lookup out of n8n's pod, n8n's database role no superuser, no lab reachable from another namespace" >&2
  exit 0
fi
say "$FAILURES failure(s) in ${#CLASS[@]} lab(s)" >&2
exit 1
