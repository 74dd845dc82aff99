#!/usr/bin/env bash
# make test-lab: the lab as trainers run it, on the real platform software, on a real Docker engine.
#
# Faithful look-alikes of the pinned n8n, Postgres and Redis images are built here (test/lab/images/,
# no registry can be reached) and tagged with the pinned names, so compose.yaml runs unchanged. Then,
# exactly as a trainer types them: the refusals of `make up` (subnet overlap, editor port taken),
# `make up`, a second `make up` that changes nothing, the hardening inside every container, who reaches
# the mock API (the worker only) and that nothing has egress, `make acceptance` (8 of 8 through the
# published editor port, the mock API only through `docker compose exec`), `make reset` (no run started
# before it reaches the mock API afterwards, with a control that shows a plain API reset does not
# suffice), `make health`, `make down` and that nothing is left behind. Prints the figures: make up to
# ready, the matrix's time, the lab's memory idle and under the matrix, each image's size, make down.
#
# The lab's commands run inside the engine's network namespace, where its published ports live, as they
# would on a trainer's machine. Engine: $DOCKER_HOST when it answers, else a private one
# (../shared/tools/docker-engine; root and `ip netns`), stopped at the end. Every wait is bounded.
# Ends with the line "N passed, N failed".
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
WORK=$(mktemp -d /tmp/soar-lab-test.XXXXXX)
LOG_TAG=lab-test
# shellcheck source=../lib/engine.sh
. test/lib/engine.sh

export LAB_PROJECT=soar-lab-ltest
export LAB_ENV_FILE=$WORK/lab.env
export LAB_HEALTH_TIMEOUT=${LAB_HEALTH_TIMEOUT:-300}
# The approval time limit of the lab's workflow; n8n checks due waits once a minute on top of it.
export APPROVAL_TIMEOUT_SECONDS=${APPROVAL_TIMEOUT_SECONDS:-20}
unset LAB_SUBNET LAB_EDITOR_PORT
EDITOR=http://127.0.0.1:5678
BASE_IMAGE=local/node-min:20
ARTEFACTS_IMAGE=soar-lab/mock-api-artefacts:lab-test
OUTSIDE_NET=soar-lab-ltest-outside
OUTSIDE_BOX=soar-lab-ltest-outside-box
OVERLAP_NET=soar-lab-ltest-overlap
STATS_PID=""
LISTENER_PID=""

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  [ -n "$STATS_PID" ] && kill "$STATS_PID" 2>/dev/null
  [ -n "$LISTENER_PID" ] && kill "$LISTENER_PID" 2>/dev/null
  if engine_answers; then
    timeout 120 bash docker/lab.sh down >/dev/null 2>&1 || true
    docker rm -f "$OUTSIDE_BOX" >/dev/null 2>&1 || true
    docker network rm "$OUTSIDE_NET" "$OVERLAP_NET" >/dev/null 2>&1 || true
  fi
  stop_engine
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- prerequisites -------------------------------------------------------------------------------
[ -f dist/app/main.js ] || { echo "lab-test: dist/app/main.js missing: run npm run build first" >&2; exit 1; }
ensure_compose_client
start_engine "${LAB_TEST_ENGINE_DIR:-/tmp/soar-lab-test-engine}" soar-lab-test
require_buildkit
# In the engine's namespace when it is ours (its published ports live there), else as it is.
in_ns() {
  if [ -n "$ENGINE_NETNS" ]; then nsenter --net="/var/run/netns/$ENGINE_NETNS" "$@"; else "$@"; fi
}
lab() { in_ns timeout "${LAB_STEP_TIMEOUT:-600}" bash docker/lab.sh "$@"; }

# --- images ----------------------------------------------------------------------------------------
log "platform images (test/lab/images/build.sh)"
images_start=$SECONDS
timeout 3000 bash test/lab/images/build.sh 2>&1 | sed -u 's/^/        /'
IMAGES_SECONDS=$((SECONDS - images_start))
log "the mock API's artefacts"
mock_api_artefacts "$BASE_IMAGE" "$ARTEFACTS_IMAGE"

# --- refusals before anything starts ------------------------------------------------------------------
log "make up refuses what would fail half-way"
nothing_made() {
  [ -z "$(docker ps -aq --filter "label=com.docker.compose.project=$LAB_PROJECT")" ] && [ ! -e "$LAB_ENV_FILE" ]
}
docker network create --subnet 172.30.0.0/16 "$OVERLAP_NET" >/dev/null
out=$(lab up 2>&1) && rc=0 || rc=$?
check "make up refuses a lab subnet that overlaps a Docker network, in one line ($(head -c 90 <<<"$out"))" \
  test "$rc" = 1 -a "$(grep -c . <<<"$out")" = 1 -a -n "$(grep -o 'overlaps the Docker network' <<<"$out")"
check "... and made nothing (no container, no .env)" nothing_made
docker network rm "$OVERLAP_NET" >/dev/null
# Started directly (not through a function, which would fork a subshell), so $! is the listener itself.
if [ -n "$ENGINE_NETNS" ]; then
  nsenter --net="/var/run/netns/$ENGINE_NETNS" node -e 'require("net").createServer().listen(5678, "127.0.0.1")' &
else
  node -e 'require("net").createServer().listen(5678, "127.0.0.1")' &
fi
LISTENER_PID=$!
sleep 1
out=$(lab up 2>&1) && rc=0 || rc=$?
check "make up refuses a taken editor port, in one line ($(head -c 90 <<<"$out"))" \
  test "$rc" = 1 -a "$(grep -c . <<<"$out")" = 1 -a -n "$(grep -o 'is already in use' <<<"$out")"
check "... and made nothing" nothing_made
kill "$LISTENER_PID" && wait "$LISTENER_PID" 2>/dev/null || true
LISTENER_PID=""

# --- up ----------------------------------------------------------------------------------------------
log "make up (docker/lab.sh up), as a trainer runs it"
up_start=$SECONDS
if ! lab up >"$WORK/up.log" 2>&1; then
  cat "$WORK/up.log"
  fail "make up brings the real lab up ready"
  summary
fi
UP_SECONDS=$((SECONDS - up_start))
pass "make up brings the real lab up ready (${UP_SECONDS} s)"
sed 's/^/        /' "$WORK/up.log" | grep -v '^        *$' | head -30
up_prints_where_things_are() {
  local line
  for line in 'console:     http://127.0.0.1:8088' "n8n editor:  $EDITOR" \
    "first alert: curl -X POST $EDITOR/webhook/suspicious-login" 'approve:' 'state:       make state'; do
    grep -qF "$line" "$WORK/up.log" || { echo "missing: $line"; return 1; }
  done
}
check "make up prints the console and editor URLs, the first alert, how to approve and the state" \
  up_prints_where_things_are
check "... and how long it took" grep -Eq '^The lab is up \([0-9]+ s from make up to ready\)' "$WORK/up.log"

API=$(container mock-api)
WORKER=$(container n8n-worker)
MAIN=$(container n8n)
INTERNAL_NET=${LAB_PROJECT}_lab-internal
API_IP=$(docker inspect -f "{{(index .NetworkSettings.Networks \"$INTERNAL_NET\").IPAddress}}" "$API")
FETCH='const u=process.argv[1];fetch(u,{signal:AbortSignal.timeout(3000)}).then(async r=>{console.log(r.status,(await r.text()).slice(0,200));process.exit(r.ok?0:1)},e=>{console.log("error",e.cause?.code??e.name);process.exit(1)})'
fetch_in() { timeout 20 docker exec "$1" node -e "$FETCH" "$2"; }
# Registered for POST: n8n answers a GET with "not registered for GET" (a probe that starts no run).
webhook_registered() { in_ns curl -s "$EDITOR/webhook/suspicious-login" | grep -q 'not registered for GET'; }

check "the response workflow is published (its webhook is registered)" webhook_registered

# --- a second make up changes nothing -------------------------------------------------------------------
log "a second make up on the running lab"
started() { docker ps -q --filter "label=com.docker.compose.project=$LAB_PROJECT" | xargs docker inspect -f '{{.Name}} {{.Id}} {{.State.StartedAt}}' | sort; }
before=$(started)
out=$(lab up 2>&1) && rc=0 || rc=$?
check "make up again: exit 0, says the lab is already up" test "$rc" = 0 -a -n "$(grep -o 'already up' <<<"$out")"
check "... no container was recreated or restarted" test "$before" = "$(started)"
check "... the workflows are still published" webhook_registered

# --- hardening inside every container ----------------------------------------------------------------------
log "hardening in effect inside every container (every process, read from /proc)"
# hardening_of CONTAINER UID: every process runs as UID (real, effective, saved, fs), with no capability
# (effective, permitted, bounding), NoNewPrivs, and a read-only root mount. A process that exits between
# `docker top` and the read of its /proc files (n8n's worker starts short-lived ones) is passed over,
# only when its /proc entry is gone; at least one process must have been read.
hardening_of() {
  local pid status mounts uids caps nnp root bad="" seen=0
  [ -n "$1" ] || { echo "no container"; return 1; }
  for pid in $(docker top "$1" -eo pid | tail -n +2); do
    if ! status=$(cat "/proc/$pid/status" 2>/dev/null) || ! mounts=$(cat "/proc/$pid/mountinfo" 2>/dev/null); then
      if [ -e "/proc/$pid" ]; then bad="$bad pid $pid unreadable;"; fi
      continue
    fi
    seen=$((seen + 1))
    uids=$(awk '/^Uid:/ {print $2, $3, $4, $5}' <<<"$status")
    caps=$(awk '/^Cap(Eff|Prm|Bnd):/ {printf "%s ", $2}' <<<"$status")
    nnp=$(awk '/^NoNewPrivs:/ {print $2}' <<<"$status")
    root=$(awk '$5 == "/" {split($6, o, ","); print o[1]; exit}' <<<"$mounts")
    [ "$uids" = "$2 $2 $2 $2" ] || bad="$bad pid $pid uids $uids;"
    [ "$caps" = "0000000000000000 0000000000000000 0000000000000000 " ] || bad="$bad pid $pid caps $caps;"
    [ "$nnp" = 1 ] || bad="$bad pid $pid NoNewPrivs $nnp;"
    [ "$root" = ro ] || bad="$bad pid $pid root $root;"
  done
  [ "$seen" -gt 0 ] || bad="$bad no process read;"
  [ -z "$bad" ] || { echo "$bad"; return 1; }
}
for spec in mock-api:1000 console:1000 n8n:1000 n8n-worker:1000 postgres:70 redis:999; do
  check "${spec%%:*}: every process uid ${spec#*:}, no capabilities, NoNewPrivs, read-only root" \
    hardening_of "$(container "${spec%%:*}")" "${spec#*:}"
done
# The control: the same check must fail on a container run without the hardening (as root, writable).
docker network create "$OUTSIDE_NET" >/dev/null
docker run -d --name "$OUTSIDE_BOX" --network "$OUTSIDE_NET" "$BASE_IMAGE" \
  node -e 'require("http").createServer((q,s)=>s.end("outside")).listen(8080,"0.0.0.0")' >/dev/null
OUTSIDE_IP=$(docker inspect -f "{{(index .NetworkSettings.Networks \"$OUTSIDE_NET\").IPAddress}}" "$OUTSIDE_BOX")
refute "control: a container run without the hardening fails the same check" hardening_of "$OUTSIDE_BOX" 1000

# --- who reaches the mock API ------------------------------------------------------------------------------
log "reachability and egress"
check "worker -> mock API by service name (http://mock-api:8081/health)" fetch_in "$WORKER" http://mock-api:8081/health
refute "n8n main (not on the lab network) -> mock API by name" fetch_in "$MAIN" http://mock-api:8081/health
refute "n8n main -> mock API by address $API_IP" fetch_in "$MAIN" "http://$API_IP:8081/health"
refute "a container on another network -> mock API by address" fetch_in "$OUTSIDE_BOX" "http://$API_IP:8081/health"
CONSOLE=$(container console)
refute "the console -> mock API by service name" fetch_in "$CONSOLE" http://mock-api:8081/health
refute "the console -> mock API by address $API_IP" fetch_in "$CONSOLE" "http://$API_IP:8081/health"
check "the console shows the mock API's state through the socket, on 127.0.0.1:8088" \
  in_ns node -e "$FETCH" http://127.0.0.1:8088/api/state
if [ -n "$ENGINE_NETNS" ]; then
  refute "the engine host -> mock API by address (refused: ALLOWED_CLIENTS)" in_ns node -e "$FETCH" "http://$API_IP:8081/health"
fi
check "control: the outside server answers inside its own network" fetch_in "$OUTSIDE_BOX" "http://$OUTSIDE_IP:8080/"
refute "mock API -> outside server (no egress)" fetch_in "$API" "http://$OUTSIDE_IP:8080/"
refute "worker -> outside server (no egress)" fetch_in "$WORKER" "http://$OUTSIDE_IP:8080/"
docker rm -f "$OUTSIDE_BOX" >/dev/null
docker network rm "$OUTSIDE_NET" >/dev/null

# --- memory, idle ------------------------------------------------------------------------------------------
lab_memory() { # total MiB of the lab's containers now
  docker stats --no-stream --format '{{.MemUsage}}' $(docker ps -q --filter "label=com.docker.compose.project=$LAB_PROJECT") |
    awk '{v = $1; u = v; gsub(/[0-9.]/, "", u); sub(/[A-Za-z]+$/, "", v);
      f = (u == "GiB") ? 1024 : (u == "MiB") ? 1 : (u == "KiB") ? 1 / 1024 : 1 / 1048576; t += v * f}
      END {printf "%d", t}'
}
IDLE_MIB=$(lab_memory)
docker stats --no-stream --format '{{.Name}} {{.MemUsage}}' $(docker ps -q --filter "label=com.docker.compose.project=$LAB_PROJECT") |
  sed 's/^/        idle: /'

# --- make acceptance ---------------------------------------------------------------------------------------
log "make acceptance (TARGET=lab): alerts and approvals through the editor port, the mock API through exec"
(while :; do lab_memory >>"$WORK/stats"; echo >>"$WORK/stats"; sleep 3; done) &
STATS_PID=$!
matrix_start=$SECONDS
rm -f reports/acceptance-lab.json
lab acceptance lab >"$WORK/acceptance.log" 2>&1 && rc=0 || rc=$?
MATRIX_SECONDS=$((SECONDS - matrix_start))
kill "$STATS_PID" 2>/dev/null && wait "$STATS_PID" 2>/dev/null || true
STATS_PID=""
PEAK_MIB=$(sort -n "$WORK/stats" | tail -n 1)
sed 's/^/        /' "$WORK/acceptance.log" | tail -n 20
counts=$(node -e 'const r=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));console.log(r.counts.pass,r.counts.fail)' \
  reports/acceptance-lab.json 2>/dev/null || echo "0 0")
check "make acceptance passes 8 of 8 on the real lab (exit $rc, $counts pass/fail, ${MATRIX_SECONDS} s)" test "$rc" = 0 -a "$counts" = "8 0"

# --- make check: the stage checker on the lab -----------------------------------------------------------
log "make check STAGE=all on the lab: the stage checker, the Webhook stage read through n8n's public API"
check_start=$SECONDS
in_ns timeout 1200 make -s --no-print-directory check STAGE=all >"$WORK/check.log" 2>&1 && rc=0 || rc=$?
CHECK_SECONDS=$((SECONDS - check_start))
grep -E '^(PASS|FAIL) +stage' "$WORK/check.log" | sed 's/^/        /'
check "make check STAGE=all passes every stage on the lab's reference workflow (exit $rc, ${CHECK_SECONDS} s)" test "$rc" = 0
check "... the seven fields judged from n8n's execution data with the lab's API key" \
  grep -Eq '^PASS +webhook .*all seven mapped fields appear in the execution data' "$WORK/check.log"

# --- make reset: a clean exercise --------------------------------------------------------------------------
log "make reset: no run started before it reaches the mock API afterwards"
state_json() { lab state; }
alert() { # alert EVENT_ID: a positive alert, which waits for approval
  in_ns curl -s -o /dev/null -w '%{http_code}' -X POST "$EDITOR/webhook/suspicious-login" -H 'content-type: application/json' \
    -d "{\"event_id\":\"$1\",\"event_type\":\"suspicious_login\",\"user\":\"lab-admin\",\"source_ip\":\"203.0.113.66\",\"failed_attempts\":7,\"successful_login\":true,\"confidence\":92,\"environment\":\"training\"}"
}
resume_url_of() { # resume_url_of EVENT_ID: waits (60 s at most) for its approval request, prints its URL
  local url
  for _ in $(seq 60); do
    url=$(state_json | node -e 'let s="";process.stdin.on("data",c=>s+=c).on("end",()=>{const n=JSON.parse(s).notifications.find(n=>n.event_id===process.argv[1]&&typeof n.resume_url==="string");if(n)console.log(n.resume_url)})' "$1")
    [ -n "$url" ] && { echo "$url"; return 0; }
    sleep 1
  done
  return 1
}
decide() { # decide URL DECISION: POSTs the decision, retrying n8n's 409 "running already"; prints the status
  local code
  for _ in $(seq 20); do
    code=$(in_ns curl -s -o /dev/null -w '%{http_code}' -X POST "$1" -H 'content-type: application/json' \
      -d "{\"decision\":\"$2\",\"approver\":\"lab-test\"}")
    [ "$code" = 409 ] || break
    sleep 0.5
  done
  echo "$code"
}
# Requests in the journal other than the reset itself: what reached the mock API since.
journal_since_reset() {
  state_json | node -e 'let s="";process.stdin.on("data",c=>s+=c).on("end",()=>{const j=JSON.parse(s).journal.filter(e=>!(e.method==="POST"&&e.path==="/reset"));console.log(j.map(e=>e.method+" "+e.path+" "+e.status).join("; "))})'
}
# The control: a plain API reset leaves the waiting run alive; when it resumes, it writes into the new
# exercise. This is what `make reset` must prevent, and what the check below would see if it did not.
alert reset-control-1 >/dev/null
control_url=$(resume_url_of reset-control-1 || true)
lab api POST /reset '{}' >/dev/null
control_code=$(decide "$control_url" reject)
for _ in $(seq 30); do [ -n "$(journal_since_reset)" ] && break; sleep 1; done
control_journal=$(journal_since_reset)
check "control: after a plain API reset, a waiting run still reaches the mock API (resume $control_code: ${control_journal:0:80})" \
  test -n "$control_journal"
# make reset: the run is stopped in n8n, then the mock API is reset.
alert reset-run-1 >/dev/null
run_url=$(resume_url_of reset-run-1 || true)
reset_started=$SECONDS
lab reset >"$WORK/reset.log" 2>&1 && rc=0 || rc=$?
check "make reset stops the waiting run and resets ($(head -n 1 "$WORK/reset.log"))" \
  test "$rc" = 0 -a -n "$(grep -o 'stopped [1-9][0-9]* unfinished' "$WORK/reset.log")"
late_code=$(decide "$run_url" approve)
check "a decision sent after make reset is not taken (answered $late_code)" test "${late_code:0:1}" != 2
# Past its time limit, plus n8n's one-minute check of due waits: nothing from it in the journal.
deadline=$((reset_started + APPROVAL_TIMEOUT_SECONDS + 70))
while [ $SECONDS -lt $deadline ]; do
  [ -n "$(journal_since_reset)" ] && break
  sleep 5
done
stale=$(journal_since_reset)
check "past its time limit (+70 s), nothing from the stopped run in the journal${stale:+ ($stale)}" test -z "$stale"

# --- health, down, nothing left behind -------------------------------------------------------------------
log "make health, make down"
health_ok() { in_ns timeout 60 make -s --no-print-directory health | grep -q '"case_mode": *"healthy"'; }
check "make health: case_mode healthy, through the container" health_ok
declare -A SIZES=()
for image in soar-lab/mock-api:1.0.0 n8nio/n8n:2.41.1 postgres:16.4-alpine redis:7.4.1-alpine; do
  SIZES[$image]=$(($(docker image inspect -f '{{.Size}}' "$image") / 1000000))
done
down_start=$SECONDS
check "make down" lab down
DOWN_SECONDS=$((SECONDS - down_start))
check_nothing_left

echo
echo "lab test figures: images ${IMAGES_SECONDS} s (build or cache import); make up to ready ${UP_SECONDS} s;" \
  "matrix ${MATRIX_SECONDS} s; make check STAGE=all ${CHECK_SECONDS} s; lab memory idle ${IDLE_MIB} MiB, peak under the matrix ${PEAK_MIB:-?} MiB;" \
  "make down ${DOWN_SECONDS} s; images (MB):$(for i in "${!SIZES[@]}"; do printf ' %s %s' "$i" "${SIZES[$i]}"; done);" \
  "total ${SECONDS} s"
summary
