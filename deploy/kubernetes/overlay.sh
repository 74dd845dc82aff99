# shellcheck shell=bash
# One trainee's overlay of deploy/kubernetes/base (labs/k8s/<name>/) and the class's hand-out. Sourced by
# deploy/kubernetes/render.sh (with cluster.sh, after docker/lab/settings.sh: the lab's values are make
# up's, docker/lab/values.sh); defines functions only.

K8S_PREFIX=soar-lab-
# The Pod Security Standard every lab namespace enforces, warns about and audits, at a fixed version.
K8S_PSS_VERSION=v1.34

# A trainee's slot, for `kubectl port-forward`: the ports on the trainer's machine are the classroom's for
# that slot (slot_editor_port, slot_console_port). Taken once: the first slot no other overlay holds.
k8s_slot() {
  local file=$K8S_DIR/$1/lab.env s=1
  if [ -f "$file" ]; then sed -n 's/^LAB_SLOT=//p' "$file"; return 0; fi
  while grep -qs "^LAB_SLOT=$s\$" "$K8S_DIR"/*/lab.env; do s=$((s + 1)); done
  echo "$s"
}

# The lab's secrets, private: kept from the first render; else read back from the cluster when the lab's
# namespace exists there (n8n's database keeps its first password); else made. A secret the file lacks
# (one a newer lab has) is added; one no lab uses any more (Redis's, from the queue-mode lab) is dropped.
k8s_secrets() {
  local name=$1 file=$K8S_DIR/$1/secrets.env key
  [ -f "$file" ] || cluster_secrets "$name" "$file" || (umask 077 && : >"$file")
  if grep -q '^REDIS_PASSWORD=' "$file"; then
    (umask 077 && { grep -v '^REDIS_PASSWORD=' "$file" >"$file.new" || true; })
    mv "$file.new" "$file"
  fi
  for key in N8N_ENCRYPTION_KEY POSTGRES_PASSWORD N8N_OWNER_EMAIL N8N_OWNER_PASSWORD CONSOLE_SECRET; do
    grep -q "^$key=." "$file" || echo "$key=$(lab_secret "$key" "$name")" >>"$file"
  done
}

# relative_path FROM TO: TO as seen from the folder FROM (kustomize takes no absolute base).
relative_path() {
  local from to up=""
  from=$(cd "$1" && pwd -P) to=$(cd "$2" && pwd -P)
  while [ "$from" != / ] && [ "${to#"$from"/}" = "$to" ] && [ "$to" != "$from" ]; do
    from=$(dirname "$from")
    up="../$up"
  done
  if [ "$to" = "$from" ]; then echo "${up:-.}"; elif [ "$from" = / ]; then echo "$up${to#/}"; else echo "$up${to#"$from"/}"; fi
}

# The trainee's addresses: the Ingress's hosts when the class has K8S_HOST, else port-forward's.
editor_url() { if [ -n "$K8S_HOST" ]; then echo "http://n8n-$1.$K8S_HOST"; else echo "http://127.0.0.1:$(slot_editor_port "$2")"; fi; }
console_url() { if [ -n "$K8S_HOST" ]; then echo "http://console-$1.$K8S_HOST"; else echo "http://127.0.0.1:$(slot_console_port "$2")"; fi; }

# json_patch POLICY OPS...: a kustomize patch of the lab's NetworkPolicy POLICY, one JSON Patch op a line.
json_patch() {
  local policy=$1 op
  shift
  echo "  - target: {kind: NetworkPolicy, name: $policy}"
  echo "    patch: |-"
  for op in "$@"; do echo "      - $op"; done
}

# The cluster's own addresses the base cannot know: the DNS Service (NodeLocal DNSCache answers it on the
# node, untranslated) and the API server, for the set-up only, each on its own port.
cluster_patches() {
  local ops=() ip port
  for ip in $K8S_DNS; do ops+=("{op: add, path: /spec/egress/0/to/-, value: {ipBlock: {cidr: $(cidr "$ip")}}}"); done
  [ ${#ops[@]} -eq 0 ] || json_patch dns "${ops[@]}"
  ops=()
  while read -r ip port; do
    ops+=("{op: add, path: /spec/egress/-, value: {to: [{ipBlock: {cidr: $(cidr "$ip")}}], ports: [{protocol: TCP, port: $port}]}}")
  done <<<"$K8S_API"
  json_patch mock-api "${ops[@]}"
}

# With an Ingress: the ingress controller's pods (its namespace and its pods' label, not the whole
# namespace) reach the editor and the console, nothing else.
ingress_patches() {
  local peer="{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: $K8S_INGRESS_NAMESPACE}}, podSelector: {matchLabels: {${K8S_INGRESS_POD_LABEL%%=*}: \"${K8S_INGRESS_POD_LABEL#*=}\"}}}"
  json_patch n8n "{op: add, path: /spec/ingress/-, value: {from: [$peer], ports: [{protocol: TCP, port: 5678}]}}"
  json_patch mock-api "{op: add, path: /spec/ingress/-, value: {from: [$peer], ports: [{protocol: TCP, port: 8088}]}}"
}

write_ingress() {
  local name=$1 file=$K8S_DIR/$1/ingress.yaml host service port
  cat >"$file" <<EOF2
# The trainee's editor (and webhooks) and console through the cluster's ingress controller, plain HTTP.
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: lab
  annotations:
    # The console's live view is a server-sent event stream; n8n's editor holds a push connection.
    nginx.ingress.kubernetes.io/proxy-buffering: "off"
    nginx.ingress.kubernetes.io/proxy-read-timeout: "3600"
spec:
EOF2
  [ -z "$K8S_INGRESS_CLASS" ] || echo "  ingressClassName: $K8S_INGRESS_CLASS" >>"$file"
  echo "  rules:" >>"$file"
  while read -r host service port; do
    cat >>"$file" <<EOF2
    - host: $host.$K8S_HOST
      http:
        paths:
          - {path: /, pathType: Prefix, backend: {service: {name: $service, port: {number: $port}}}}
EOF2
  done <<<"n8n-$name n8n 5678
console-$name console 8088"
}

write_overlay() {
  local name=$1 dir=$K8S_DIR/$1 slot editor pss f
  mkdir -p "$dir/workflows"
  slot=$(k8s_slot "$name")
  editor=$(editor_url "$name" "$slot")
  (umask 077 && echo "LAB_SLOT=$slot" >"$dir/lab.env")
  k8s_secrets "$name"
  rm -f "$dir"/workflows/*.json "$dir/ingress.yaml" "$dir/registry.json"
  cp "$ROOT"/docker/workflows/*.json "$dir/workflows/"
  # Postgres's init script (n8n's role and database), compose.yaml's own files: kustomize reads no file
  # outside the overlay's folder. The ConfigMap postgres-initdb is made from this copy (a test holds it
  # equal to docker/postgres/initdb/).
  compgen -G "$ROOT/docker/postgres/initdb/*" >/dev/null ||
    die "docker/postgres/initdb/ holds no init script: Postgres could not make n8n's role"
  rm -rf "$dir/postgres-initdb" && mkdir "$dir/postgres-initdb"
  cp "$ROOT"/docker/postgres/initdb/* "$dir/postgres-initdb/"
  for pss in enforce warn audit; do
    printf '    pod-security.kubernetes.io/%s: restricted\n    pod-security.kubernetes.io/%s-version: %s\n' \
      "$pss" "$pss" "$K8S_PSS_VERSION"
  done >"$dir/pss.labels"
  {
    printf 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n  labels:\n' "$K8S_PREFIX$name"
    printf '    app.kubernetes.io/part-of: soar-lab\n    soar-lab/trainee: %s\n' "$name"
    echo "    # Every pod of the lab meets the restricted Pod Security Standard: enforced, warned, audited."
    cat "$dir/pss.labels"
  } >"$dir/namespace.yaml"
  rm -f "$dir/pss.labels"
  [ -z "$K8S_HOST" ] || write_ingress "$name"
  [ -z "$K8S_PULL_SECRET" ] || (umask 077 && cp "$K8S_PULL_SECRET" "$dir/registry.json")
  {
    echo "# Written by make k8s-render (deploy/kubernetes/render.sh) for $name; secrets.env beside it is private."
    echo "apiVersion: kustomize.config.k8s.io/v1beta1"
    echo "kind: Kustomization"
    echo "namespace: $K8S_PREFIX$name"
    echo "resources:"
    echo "  - namespace.yaml"
    echo "  - ${K8S_BASE:=$(relative_path "$dir" "$ROOT/deploy/kubernetes/base")}"
    [ -z "$K8S_HOST" ] || echo "  - ingress.yaml"
    echo "images:"
    # The base's image, by name (docker/lab/settings.generated.sh's LAB_IMAGE without its tag).
    echo "  - name: ${LAB_IMAGE%:*}"
    echo "    newName: $K8S_IMAGE_NAME"
    if [ -n "$K8S_IMAGE_DIGEST" ]; then echo "    digest: $K8S_IMAGE_DIGEST"; else echo "    newTag: \"$K8S_IMAGE_TAG\""; fi
    echo "configMapGenerator:"
    echo "  - name: lab-settings"
    echo "    behavior: merge"
    echo "    literals:"
    echo "      - LAB_MODE=$K8S_MODE"
    echo "      - WEBHOOK_URL=$editor/"
    echo "      - N8N_EDITOR_BASE_URL=$editor/"
    echo "      - N8N_PUBLIC_URL=$editor"
    echo "      - APPROVAL_TIMEOUT_SECONDS=$APPROVAL_TIMEOUT_SECONDS"
    echo "      - ALLOWED_CLIENTS=$K8S_POD_CIDR,127.0.0.1/32"
    [ -z "$K8S_HOST" ] || echo "      - CONSOLE_ALLOWED_HOSTS=console-$name.$K8S_HOST"
    # The session cookie's name: the lab's, and the port the trainer's port-forward or the Ingress serves.
    echo "      - CONSOLE_LAB=$name"
    if [ -n "$K8S_HOST" ]; then echo "      - CONSOLE_PUBLISHED_PORT=80"; else echo "      - CONSOLE_PUBLISHED_PORT=$(slot_console_port "$slot")"; fi
    echo "  - name: lab-workflows"
    echo "    files:"
    for f in "$dir"/workflows/*.json; do echo "      - workflows/$(basename "$f")"; done
    echo "  - name: postgres-initdb"
    echo "    files:"
    for f in "$dir"/postgres-initdb/*; do echo "      - postgres-initdb/$(basename "$f")"; done
    echo "secretGenerator:"
    echo "  # A fixed name: the render reads it back from the cluster when this folder is lost."
    echo "  - name: lab-secrets"
    echo "    envs: [secrets.env]"
    echo "    options: {disableNameSuffixHash: true}"
    if [ -n "$K8S_PULL_SECRET" ]; then
      echo "  - name: lab-registry"
      echo "    type: kubernetes.io/dockerconfigjson"
      echo "    files: [.dockerconfigjson=registry.json]"
    fi
    echo "patches:"
    cluster_patches
    [ -z "$K8S_HOST" ] || ingress_patches
    if [ -n "$K8S_PULL_SECRET" ]; then
      echo "  - target: {kind: Deployment, name: mock-api}"
      echo "    patch: |-"
      echo "      - {op: add, path: /spec/template/spec/imagePullSecrets, value: [{name: lab-registry}]}"
    fi
  } >"$dir/kustomization.yaml"
}

# labs/k8s/roster.txt (private: it holds the logins): per trainee the port-forward lines the trainer runs
# (none with an Ingress), the URLs, the login and the console's secret.
write_handout() {
  local name slot file=$K8S_DIR/roster.txt secrets
  (
    umask 077
    for name in "$@"; do
      slot=$(k8s_slot "$name")
      secrets=$K8S_DIR/$name/secrets.env
      echo "$name: namespace $K8S_PREFIX$name"
      if [ -z "$K8S_HOST" ]; then
        echo "  kubectl -n $K8S_PREFIX$name port-forward svc/n8n $(slot_editor_port "$slot"):5678"
        echo "  kubectl -n $K8S_PREFIX$name port-forward svc/console $(slot_console_port "$slot"):8088"
      fi
      echo "  editor  $(editor_url "$name" "$slot")  login $(sed -n 's/^N8N_OWNER_EMAIL=//p' "$secrets") / $(sed -n 's/^N8N_OWNER_PASSWORD=//p' "$secrets")"
      echo "  console $(console_url "$name" "$slot")  secret $(sed -n 's/^CONSOLE_SECRET=//p' "$secrets")"
    done >"$file"
  )
}
