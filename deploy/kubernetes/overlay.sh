# shellcheck shell=bash
# One trainee's overlay of deploy/kubernetes/base (labs/k8s/<name>/) and the class's hand-out. Sourced by
# deploy/kubernetes/render.sh; defines functions only.

K8S_PREFIX=soar-lab-

# A trainee's ports on the trainer's machine, for `kubectl port-forward` (the classroom's: 5678+s, 8088+s),
# taken once: the first slot no other overlay holds.
k8s_slot() {
  local name=$1 file=$K8S_DIR/$1/lab.env s=1
  if [ -f "$file" ]; then sed -n 's/^LAB_SLOT=//p' "$file"; return 0; fi
  while grep -qs "^LAB_SLOT=$s\$" "$K8S_DIR"/*/lab.env; do s=$((s + 1)); done
  echo "$s"
}

# The lab's secrets, made at its first render and kept (n8n's database keeps the first password).
k8s_secrets() {
  local name=$1 file=$K8S_DIR/$1/secrets.env
  [ -f "$file" ] && return 0
  (
    umask 077
    {
      echo "N8N_ENCRYPTION_KEY=$(random_hex 32)"
      echo "POSTGRES_PASSWORD=$(random_hex 24)"
      echo "N8N_OWNER_EMAIL=$name@soar-lab.test"
      echo "N8N_OWNER_PASSWORD=Lab-$(random_hex 6)-Aa1"
      echo "CONSOLE_SECRET=$(random_hex 12)"
    } >"$file"
  )
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

write_overlay() {
  local name=$1 dir=$K8S_DIR/$1 slot editor
  mkdir -p "$dir/workflows"
  slot=$(k8s_slot "$name")
  editor=http://127.0.0.1:$((5678 + slot))
  (umask 077 && echo "LAB_SLOT=$slot" >"$dir/lab.env")
  k8s_secrets "$name"
  rm -f "$dir"/workflows/*.json
  cp "$ROOT"/docker/n8n/workflows/*.json "$dir/workflows/"
  cat >"$dir/namespace.yaml" <<EOF2
apiVersion: v1
kind: Namespace
metadata:
  name: $K8S_PREFIX$name
  labels:
    app.kubernetes.io/part-of: soar-lab
    soar-lab/trainee: $name
    # Every pod of the lab meets the restricted Pod Security Standard; the cluster refuses one that does not.
    pod-security.kubernetes.io/enforce: restricted
EOF2
  {
    echo "# Written by make k8s-render (deploy/kubernetes/render.sh) for $name; secrets.env beside it is private."
    echo "apiVersion: kustomize.config.k8s.io/v1beta1"
    echo "kind: Kustomization"
    echo "namespace: $K8S_PREFIX$name"
    echo "resources:"
    echo "  - namespace.yaml"
    echo "  - $(relative_path "$dir" "$ROOT/deploy/kubernetes/base")"
    echo "images:"
    echo "  - name: soar-lab/mock-api"
    echo "    newName: ${K8S_IMAGE%:*}"
    echo "    newTag: \"${K8S_IMAGE##*:}\""
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
    echo "  - name: lab-workflows"
    echo "    files:"
    for f in "$dir"/workflows/*.json; do echo "      - workflows/$(basename "$f")"; done
    echo "secretGenerator:"
    echo "  - name: lab-secrets"
    echo "    envs: [secrets.env]"
  } >"$dir/kustomization.yaml"
}

# labs/k8s/roster.txt (private: it holds the logins): per trainee the port-forward lines the trainer runs,
# the URLs, the login and the console's secret.
write_handout() {
  local name slot file=$K8S_DIR/roster.txt
  (
    umask 077
    for name in "$@"; do
      slot=$(k8s_slot "$name")
      echo "$name: namespace $K8S_PREFIX$name"
      echo "  kubectl -n $K8S_PREFIX$name port-forward svc/n8n $((5678 + slot)):5678"
      echo "  kubectl -n $K8S_PREFIX$name port-forward svc/console $((8088 + slot)):8088"
      echo "  editor  http://127.0.0.1:$((5678 + slot))  login $(sed -n 's/^N8N_OWNER_EMAIL=//p' "$K8S_DIR/$name/secrets.env") / $(sed -n 's/^N8N_OWNER_PASSWORD=//p' "$K8S_DIR/$name/secrets.env")"
      echo "  console http://127.0.0.1:$((8088 + slot))  secret $(sed -n 's/^CONSOLE_SECRET=//p' "$K8S_DIR/$name/secrets.env")"
    done >"$file"
  )
}
