# shellcheck shell=bash
# The Kubernetes lab's set-up container (deploy/kubernetes/base/lab-setup.sh), run against the real n8n of
# the running compose lab (part of test/lab/run.sh): the lab's image with the init container's mounts and
# hardening, on the lab's editor network (where n8n answers by its service name, as in a trainee's
# namespace). It makes or finds the owner and leaves a key that n8n's public API accepts.
#   needs: ROOT, WORK, ENV_FILE (the running lab's settings), lib.sh and test/lib/engine.sh sourced

# k8s_setup EMAIL PASSWORD: the set-up as the init container runs it, then the console's use of its key.
k8s_setup() {
  docker run --rm --network soar-lab_editor --read-only --cap-drop ALL --security-opt no-new-privileges \
    --user 1000:1000 --tmpfs /tmp --tmpfs /lab/n8n-key:uid=1000,gid=1000,mode=0700 \
    -v "$ROOT/deploy/kubernetes/base/lab-setup.sh:/lab/setup/lab-setup.sh:ro" \
    -v "$ROOT/docker/n8n/workflows:/lab/workflows:ro" \
    -e N8N_URL=http://n8n:5678 -e LAB_MODE=exercise -e N8N_OWNER_EMAIL="$1" -e N8N_OWNER_PASSWORD="$2" \
    soar-lab/mock-api:1.0.0 sh -c 'sh /lab/setup/lab-setup.sh &&
      N8N_API_KEY=$(cat /lab/n8n-key/n8n-api-key) N8N_URL=$N8N_URL node dist/app/n8n/cli.js stop-runs' \
    >"$WORK/k8s-setup.log" 2>&1
}
k8s_setup_said() { grep -q "^lab-setup: n8n owner exists$" "$WORK/k8s-setup.log" &&
  grep -q "^lab-setup: n8n API key for the console written$" "$WORK/k8s-setup.log" &&
  grep -Eq "^stopped [0-9]+ unfinished workflow run\(s\)$" "$WORK/k8s-setup.log"; }

k8s_setup_in_lab() {
  log "the Kubernetes lab's set-up container against the running n8n"
  local email password
  email=$(env_of "$ENV_FILE" N8N_OWNER_EMAIL)
  password=$(env_of "$ENV_FILE" N8N_OWNER_PASSWORD)
  check "deploy/kubernetes/base/lab-setup.sh finds the owner and leaves a key n8n's API accepts" \
    k8s_setup "$email" "$password"
  check "... and says so in its lines ($(tr '\n' '|' <"$WORK/k8s-setup.log" | cut -c1-160))" k8s_setup_said
  refute "control: with a wrong owner password it fails" k8s_setup "$email" "Wrong-$password"
}
