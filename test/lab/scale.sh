#!/usr/bin/env bash
# make test-class-scale N=16: how many trainees one host holds, measured (not part of CI: it takes long).
# On one engine (a private one, as make test-lab starts it; or $DOCKER_HOST), with the images present:
#   1. `make class-up` of N labs from a roster, timed; each lab's memory idle (docker stats);
#   2. the scripted trainee's whole workflow published in every lab (test/lab/trainee.ts);
#   3. `make check STAGE=block` in one lab alone, timed: the lone figure;
#   4. all N labs run `make check STAGE=block` at the same time: each one's time and result, each lab's peak
#      memory under the checks (docker stats every 3 s), the host's free memory and load (/proc), and every
#      container killed for memory (OOMKilled);
#   5. `make class-down`.
# Pass: every check passes, the slowest within 2x the lone one, nothing killed for memory. Ends with
# "N passed, N failed". Figures on stdout and in $SCALE_REPORT (default reports/class-scale.txt).
# Env: N (default 16), APPROVAL_TIMEOUT_SECONDS (default 20), SCALE_STAGE (default block).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
WORK=$(mktemp -d /tmp/soar-lab-scale.XXXXXX)
LOG_TAG=class-scale
# shellcheck source=../lib/engine.sh
. test/lib/engine.sh
# shellcheck source=lib.sh
. test/lab/lib.sh

N=${N:-16}
STAGE=${SCALE_STAGE:-block}
REPORT=${SCALE_REPORT:-$ROOT/reports/class-scale.txt}
export APPROVAL_TIMEOUT_SECONDS=${APPROVAL_TIMEOUT_SECONDS:-20} LAB_HEALTH_TIMEOUT=${LAB_HEALTH_TIMEOUT:-1800}
export LAB_SAVE_DIR=$WORK/saved
unset LAB LAB_MODE LAB_SUBNET LAB_EDITOR_PORT LAB_CONSOLE_PORT LAB_BIND
ROSTER_FILE=$WORK/class.txt
SAMPLER_PID=""
if ! [[ $N =~ ^[1-9][0-9]?$ ]] || [ "$N" -gt 64 ]; then
  echo "class-scale: N=$N is not a number of labs (1-64)" >&2
  exit 2
fi

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  [ -n "$SAMPLER_PID" ] && kill "$SAMPLER_PID" 2>/dev/null
  if engine_answers && [ -f "$ROSTER_FILE" ]; then
    FORCE=1 timeout 1800 make -s --no-print-directory class-down ROSTER="$ROSTER_FILE" >/dev/null 2>&1
  fi
  stop_engine
  rm -rf "$WORK"
  exit "$rc"
}

[ -f dist/app/api/main.js ] || { echo "class-scale: dist/ missing: run npm run build first" >&2; exit 1; }
if [ -n "$(ls labs/*.env 2>/dev/null)" ] || [ -e .env ]; then
  echo "class-scale: a lab of this checkout is running (.env or labs/*.env): make down first" >&2
  exit 1
fi
trap cleanup EXIT
trap 'exit 130' INT TERM
start_engine "${LAB_TEST_ENGINE_DIR:-/tmp/soar-lab-test-engine}" soar-lab-test
require_buildkit
if [ -n "$STARTED_ENGINE" ]; then
  docker ps -aq | xargs -r docker rm -f >/dev/null
  docker network prune -f >/dev/null
  docker volume prune -af >/dev/null
fi
log "platform images"
timeout 3000 bash test/lab/images/build.sh 2>&1 | sed -u 's/^/        /' | tail -n 2
mock_api_artefacts local/node-min:20 soar-lab/mock-api-artefacts:lab-test
make_lab() { as_trainer timeout 3600 make -s --no-print-directory "$@"; }

names() { for i in $(seq -w 1 "$N"); do echo "t$i"; done; }
names >"$ROSTER_FILE"
host_free_mib() { awk '/^MemAvailable:/ {printf "%d", $2 / 1024}' /proc/meminfo; }
load1() { cut -d ' ' -f 1 /proc/loadavg; }
# Memory of every lab now, one "name MiB" a line.
labs_memory() { local n; for n in $(names); do echo "$n $(lab_memory "soar-lab-$n")"; done; }
oom_killed() { docker ps -aq | xargs -r docker inspect -f '{{.Name}} {{.State.OOMKilled}}' | grep -c ' true$' || true; }

{
  echo "class scale: N=$N, stage $STAGE, approval limit ${APPROVAL_TIMEOUT_SECONDS} s"
  echo "machine: $(nproc) cores, $(awk '/^MemTotal:/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo), $(uname -r); engine $(docker version -f '{{.Server.Version}}'), compose $(docker compose version --short)"
  echo "before class-up: free $(host_free_mib) MiB, load $(load1)"
} | tee "$WORK/report"

log "make class-up of $N labs"
started=$SECONDS
if ! make_lab class-up ROSTER="$ROSTER_FILE" >"$WORK/class-up.log" 2>&1; then
  tail -n 20 "$WORK/class-up.log"
  fail "make class-up of $N labs"
  summary
fi
UP_SECONDS=$((SECONDS - started))
pass "make class-up of $N labs (${UP_SECONDS} s)"
sleep 30
labs_memory >"$WORK/idle"
echo "class-up: ${UP_SECONDS} s; idle 30 s later: free $(host_free_mib) MiB, load $(load1); per lab idle MiB: $(awk '{print $2}' "$WORK/idle" | sort -n | paste -sd ' ')" | tee -a "$WORK/report"

log "the scripted trainee publishes the whole workflow in every lab"
for n in $(names); do
  env=labs/$n.env
  TRAINEE_EMAIL=$(env_of "$env" N8N_OWNER_EMAIL) TRAINEE_PASSWORD=$(env_of "$env" N8N_OWNER_PASSWORD) \
    in_ns timeout 300 npx tsx test/lab/trainee.ts --n8n "http://127.0.0.1:$(env_of "$env" LAB_EDITOR_PORT)" --upto all \
    >"$WORK/trainee-$n.log" 2>&1 || { tail -n 3 "$WORK/trainee-$n.log"; fail "trainee publishes in lab $n"; }
done
pass "the workflow published in $N labs"

# check_lab NAME: make check LAB=NAME STAGE=...; "NAME SECONDS EXIT" into $WORK/times.
check_lab() {
  local started=$SECONDS rc=0
  make_lab check LAB="$1" STAGE="$STAGE" >"$WORK/check-$1.log" 2>&1 || rc=$?
  echo "$1 $((SECONDS - started)) $rc" >>"$WORK/times"
}

log "one lab checked alone"
check_lab t01
read -r _ LONE LONE_RC <"$WORK/times"
check "make check STAGE=$STAGE in one lab alone passes (${LONE} s)" test "$LONE_RC" = 0
: >"$WORK/times"

log "all $N labs check at the same time"
(while :; do { labs_memory 2>/dev/null || true; } >>"$WORK/busy"; echo "host $(host_free_mib) $(load1)" >>"$WORK/host"; sleep 3; done) &
SAMPLER_PID=$!
started=$SECONDS
pids=()
for n in $(names); do check_lab "$n" & pids+=($!); done
for pid in "${pids[@]}"; do wait "$pid" || true; done
ALL_SECONDS=$((SECONDS - started))
kill "$SAMPLER_PID" 2>/dev/null || true
wait "$SAMPLER_PID" 2>/dev/null || true
SAMPLER_PID=""

sort -k2 -n "$WORK/times" >"$WORK/times.sorted"
SLOWEST=$(tail -n 1 "$WORK/times.sorted" | cut -d ' ' -f 2)
MEDIAN=$(awk '{print $2}' "$WORK/times.sorted" | sed -n "$(((N + 1) / 2))p")
FAILED_LABS=$(awk '$3 != 0 {print $1}' "$WORK/times.sorted" | paste -sd ' ')
OOM=$(oom_killed)
{
  echo "checks at once: all done after ${ALL_SECONDS} s; lone ${LONE} s, median ${MEDIAN} s, slowest ${SLOWEST} s ($(awk -v s="$SLOWEST" -v l="$LONE" 'BEGIN {printf "%.2f", s / l}')x the lone)"
  echo "per lab (s): $(awk '{printf "%s %s%s; ", $1, $2, ($3 == 0 ? "" : " FAILED")}' "$WORK/times")"
  echo "per lab peak MiB under the checks: $(awk '{if ($2 > m[$1]) m[$1] = $2} END {for (k in m) print m[k]}' "$WORK/busy" | sort -n | paste -sd ' ')"
  echo "host under the checks: lowest free $(awk '{print $2}' "$WORK/host" | sort -n | head -n 1) MiB, highest load $(awk '{print $3}' "$WORK/host" | sort -n | tail -n 1)"
  echo "containers killed for memory: $OOM"
} | tee -a "$WORK/report"
check "every lab's check passes${FAILED_LABS:+ (failed: $FAILED_LABS)}" test -z "$FAILED_LABS"
check "the slowest check (${SLOWEST} s) is within 2x the lone one (${LONE} s)" test "$SLOWEST" -le $((2 * LONE))
check "no container was killed for memory ($OOM)" test "$OOM" = 0

log "make class-down"
started=$SECONDS
check "make class-down" make_lab class-down ROSTER="$ROSTER_FILE"
echo "class-down: $((SECONDS - started)) s" | tee -a "$WORK/report"
rm -f "$ROSTER_FILE"
mkdir -p "$(dirname "$REPORT")"
cp "$WORK/report" "$REPORT"
echo "report: ${REPORT#"$ROOT"/}"
summary
