# shellcheck shell=bash
# What the render asks of the cluster kubectl points at (the one the class is applied to). Sourced by
# deploy/kubernetes/render.sh; defines functions only. Each answer is a few plain lines (kubectl's own
# templates): no JSON tool is needed on the trainer's machine. Every call is checked with an explicit
# `|| exit 1`: a lab whose namespace cannot be asked about must never get new secrets.

# The API server's addresses (the `kubernetes` Service's endpoints), "ip port" a line.
# shellcheck disable=SC2016 # a Go template for kubectl: its $ are the template's, never the shell's
API_ENDPOINTS_TEMPLATE='{{range .items}}{{$port := (index .ports 0).port}}{{range .endpoints}}{{range .addresses}}{{.}} {{$port}}{{"\n"}}{{end}}{{end}}{{end}}'
# A Secret's data, decoded, as an env file.
# shellcheck disable=SC2016 # a Go template for kubectl: its $ are the template's, never the shell's
SECRET_ENV_TEMPLATE='{{range $k, $v := .data}}{{$k}}={{$v | base64decode}}{{"\n"}}{{end}}'
UNREACHABLE="cannot ask the cluster kubectl points at (the class is rendered for it: its API server, its DNS, the labs it runs)"

# ask MESSAGE ARGS...: kubectl ARGS' answer on stdout; else MESSAGE and kubectl's first complaint, exit 1.
ask() {
  local what=$1 err out
  shift
  err=$(mktemp)
  if out=$(kubectl "$@" 2>"$err"); then
    rm -f "$err"
    printf '%s\n' "$out"
    return 0
  fi
  what="$what ($(head -n 1 "$err"))"
  rm -f "$err"
  die "$what"
}

# cluster_facts: sets K8S_API ("ip port" lines: the API server, as the set-up reaches it), K8S_DNS (the
# DNS Service's addresses) and K8S_NAMESPACES (every namespace, "namespace/<name>" a line), or dies in one
# line when the cluster cannot be asked.
cluster_facts() {
  local endpoints service dns
  endpoints=$(ask "$UNREACHABLE" get endpointslices -n default -l kubernetes.io/service-name=kubernetes \
    -o "go-template=$API_ENDPOINTS_TEMPLATE") || exit 1
  service=$(ask "$UNREACHABLE" get service kubernetes -n default \
    -o 'jsonpath={.spec.clusterIP} {.spec.ports[0].port}') || exit 1
  dns=$(ask "$UNREACHABLE" get services -n kube-system -l k8s-app=kube-dns \
    -o 'jsonpath={range .items[*]}{.spec.clusterIP}{"\n"}{end}') || exit 1
  K8S_NAMESPACES=$(ask "$UNREACHABLE" get namespaces -o name) || exit 1
  K8S_API=$(printf '%s\n%s\n' "$endpoints" "$service" | grep -E '^[0-9a-fA-F.:]+ [0-9]+$' | sort -u || true)
  [ -n "$K8S_API" ] || die "the cluster names no address for its API server (kubectl get endpointslices -n default)"
  K8S_DNS=$(grep -E '^[0-9a-fA-F.:]+$' <<<"$dns" | sort -u || true)
}

# cluster_secrets NAME FILE: when the lab's namespace already exists, its Secret lab-secrets read back into
# FILE (private); returns 1 when there is no such namespace. Exits when it cannot be read.
cluster_secrets() {
  local ns=$K8S_PREFIX$1 file=$2 values
  grep -qx "namespace/$ns" <<<"$K8S_NAMESPACES" || return 1
  values=$(ask "$ns exists, but its Secret lab-secrets could not be read back" \
    -n "$ns" get secret lab-secrets -o "go-template=$SECRET_ENV_TEMPLATE") || exit 1
  grep -q '^POSTGRES_PASSWORD=.' <<<"$values" ||
    die "$ns exists, but its Secret lab-secrets holds no POSTGRES_PASSWORD: read back nothing"
  (umask 077 && printf '%s\n' "$values" >"$file")
}

# cidr ADDRESS: the address as a block of one.
cidr() { case "$1" in *:*) echo "$1/128" ;; *) echo "$1/32" ;; esac; }
