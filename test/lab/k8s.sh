# shellcheck shell=bash
# The Kubernetes lab's set-up container (`cli.js k8s-init`, deploy/kubernetes/base/mock-api.yaml), run
# against the real n8n of the running compose lab (part of test/lab/run.sh): the lab's image with the init
# container's settings and hardening, on the lab's n8n-front network (where n8n answers by its service name,
# as in a trainee's namespace). On a cluster the key is kept in the lab's Secret; here in a file of the
# test's own (the set-up's file store), which outlives each run as the Secret outlives each pod. It makes
# the key once, which n8n's API then accepts; a later start keeps it without a login, so a changed password
# blocks nothing; with no key kept and a wrong password it makes none and still ends normally.
#   needs: ROOT, WORK, ENV_FILE (the running lab's settings), lib.sh and test/lib/engine.sh sourced

K8S_KEY_DIR=$WORK/k8s-key

# k8s_run PASSWORD COMMAND: one cli.js command as the init container runs it; lines in $WORK/k8s-setup.log.
k8s_run() {
  docker run --rm --network soar-lab_n8n-front --read-only --cap-drop ALL --security-opt no-new-privileges \
    --user 1000:1000 --tmpfs /tmp -v "$K8S_KEY_DIR:/lab/n8n-key" \
    -v "$ROOT/docker/workflows:/lab/workflows:ro" \
    -e N8N_URL=http://n8n:5678 -e N8N_API_KEY_FILE=/lab/n8n-key/n8n-api-key -e LAB_MODE=exercise \
    -e N8N_OWNER_EMAIL="$K8S_EMAIL" -e N8N_OWNER_PASSWORD="$1" \
    soar-lab/mock-api:1.2.0 node dist/app/n8n/cli.js "$2" >"$WORK/k8s-setup.log" 2>&1
}
k8s_said() { grep -qx "$1" "$WORK/k8s-setup.log"; }
k8s_key() { cat "$K8S_KEY_DIR/n8n-api-key" 2>/dev/null; }
k8s_kept_same() { k8s_said "api key kept in /lab/n8n-key/n8n-api-key" && [ "$(k8s_key)" = "$1" ]; }
k8s_made_none() { grep -q "^no key for n8n's API: no key is kept and n8n refuses" "$WORK/k8s-setup.log" && [ -z "$(k8s_key)" ]; }

k8s_setup_in_lab() {
  log "the Kubernetes lab's set-up container against the running n8n"
  local password first
  K8S_EMAIL=$(env_of "$ENV_FILE" N8N_OWNER_EMAIL)
  password=$(env_of "$ENV_FILE" N8N_OWNER_PASSWORD)
  rm -rf "$K8S_KEY_DIR" && mkdir -p "$K8S_KEY_DIR" && chown 1000:1000 "$K8S_KEY_DIR" && chmod 700 "$K8S_KEY_DIR"
  check "cli.js k8s-init finds the owner and makes the lab's key" k8s_run "$password" k8s-init
  check "... and says so" k8s_said "api key made and kept in /lab/n8n-key/n8n-api-key"
  first=$(k8s_key)
  check "n8n's API accepts the kept key (cli.js stop-runs reads it)" k8s_run "$password" stop-runs
  check "a later start with a changed password keeps the key, without a login" k8s_run "Changed-$password" k8s-init
  check "... says it kept it, and it is the same key" k8s_kept_same "$first"
  rm -f "$K8S_KEY_DIR/n8n-api-key"
  check "no key kept and a wrong password: it makes none and ends normally (the lab starts)" \
    k8s_run "Wrong-$password" k8s-init
  check "... and says why" k8s_made_none
  refute "control: stop-runs without a key fails" k8s_run "$password" stop-runs
}
