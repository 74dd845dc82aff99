# shellcheck shell=bash
# The Kubernetes lab's set-up container (`cli.js init`, deploy/kubernetes/base/mock-api.yaml), run against
# the real n8n of the running compose lab (part of test/lab/run.sh): the lab's image with the init
# container's settings, mounts and hardening, on the lab's editor network (where n8n answers by its service
# name, as in a trainee's namespace). It finds the owner and leaves a key in the key file, which the
# console's tools then use on n8n's public API (the pod's console reads the same file).
#   needs: ROOT, WORK, ENV_FILE (the running lab's settings), lib.sh and test/lib/engine.sh sourced

# The init container's command, then a tool reading the key file, in one container (the image has no shell).
K8S_INIT_THEN_KEY='const {execFileSync: run} = require("node:child_process");
for (const command of ["init", "stop-runs"]) run("node", ["dist/app/n8n/cli.js", command], { stdio: "inherit" });'

# k8s_setup EMAIL PASSWORD: as the init container runs it, then a use of its key; lines in $WORK/k8s-setup.log.
k8s_setup() {
  docker run --rm --network soar-lab_editor --read-only --cap-drop ALL --security-opt no-new-privileges \
    --user 1000:1000 --tmpfs /tmp --tmpfs /lab/n8n-key:uid=1000,gid=1000,mode=0700 \
    -v "$ROOT/docker/n8n/workflows:/lab/workflows:ro" \
    -e N8N_URL=http://n8n:5678 -e N8N_API_KEY_FILE=/lab/n8n-key/n8n-api-key -e LAB_MODE=exercise \
    -e N8N_OWNER_EMAIL="$1" -e N8N_OWNER_PASSWORD="$2" \
    soar-lab/mock-api:1.0.0 node -e "$K8S_INIT_THEN_KEY" >"$WORK/k8s-setup.log" 2>&1
}
k8s_setup_said() {
  grep -qx "owner exists" "$WORK/k8s-setup.log" &&
    grep -qx "api key written to /lab/n8n-key/n8n-api-key" "$WORK/k8s-setup.log" &&
    grep -Eqx "stopped [0-9]+ unfinished workflow run\(s\)" "$WORK/k8s-setup.log"
}

k8s_setup_in_lab() {
  log "the Kubernetes lab's set-up container against the running n8n"
  local email password
  email=$(env_of "$ENV_FILE" N8N_OWNER_EMAIL)
  password=$(env_of "$ENV_FILE" N8N_OWNER_PASSWORD)
  check "cli.js init finds the owner and leaves a key file that n8n's API accepts" k8s_setup "$email" "$password"
  check "... and says so in its lines ($(tr '\n' '|' <"$WORK/k8s-setup.log" | cut -c1-160))" k8s_setup_said
  refute "control: with a wrong owner password it fails" k8s_setup "$email" "Wrong-$password"
}
