#!/usr/bin/env bash
# make bench-lab: one lab's footprint, idle and under a check, per service, on a real engine; and the times
# a trainer and a trainee wait in it.
#
# Method: `make up` of an exercise lab on the tests' engine (Docker 26.1 and Compose v2; the platform
# images built as make test-lab builds them), timed from the command to its return (the lab ready: make
# up returns once every service answers), then 60 s of rest; `docker stats --no-stream` of every
# container of the lab, SAMPLES times 5 s apart: memory per service (the median sample) and processor per
# service (the median, % of one core). Then the reference published (make solution) and `make check
# STAGE=block` while docker stats samples every 2 s: each service's peak memory and the lab's peak total
# (the check's own one-off tools container not counted). Then each stage checked alone (`make check
# STAGE=<stage> ARGS=--only`, as a trainee runs it, the published solution passing; make bench-stages
# times each stage failing too, on the pinned n8n), each from the command to its return. Then (CLASS_N >
# 0) the lab taken down and `make class-up` of CLASS_N labs timed the same way, and the class taken down.
# Ends with `make down`. Prints one table, the machine and the engine; writes nothing else.
#
# Env: SAMPLES (default 5), REST_SECONDS (default 60), CHECK_STAGE (default block; empty: idle only),
# STAGE_TIMES (default 1; 0: no stage timed), CLASS_N (default 0; the issue's class: 16),
# LAB_TEST_ENGINE_DIR (the engine, shared with make test-lab). Refuses to run beside a lab of this checkout.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
WORK=$(mktemp -d /tmp/soar-lab-bench.XXXXXX)
LOG_TAG=bench-lab
SAMPLES=${SAMPLES:-5}
REST_SECONDS=${REST_SECONDS:-60}
# shellcheck source=../test/lib/engine.sh
. test/lib/engine.sh
# shellcheck source=../test/lab/lib.sh
. test/lab/lib.sh

export APPROVAL_TIMEOUT_SECONDS=${APPROVAL_TIMEOUT_SECONDS:-20} LAB_SAVE_DIR=$WORK/saved
unset LAB LAB_MODE LAB_SUBNET LAB_EDITOR_PORT LAB_CONSOLE_PORT LAB_BIND
PEAK_PID=""

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  [ -n "$PEAK_PID" ] && kill "$PEAK_PID" 2>/dev/null
  engine_answers && LAB_FORCE_DOWN=1 timeout 300 bash docker/lab.sh down >/dev/null 2>&1
  stop_engine
  rm -rf "$WORK"
  exit "$rc"
}

# stats_once FILE: one `docker stats` line a container: service, MiB, % of one core.
stats_once() {
  # shellcheck disable=SC2046 # one container id a word
  docker stats --no-stream --format '{{.Name}} {{.MemUsage}} {{.CPUPerc}}' \
    $(docker ps -q --filter label=com.docker.compose.project=soar-lab) |
    awk '{ n = $1; sub(/^soar-lab-/, "", n); sub(/-[0-9]+$/, "", n); if (n ~ /^tools/) next; v = $2; u = v; gsub(/[0-9.]/, "", u);
      sub(/[A-Za-z]+$/, "", v); f = (u == "GiB") ? 1024 : (u == "MiB") ? 1 : (u == "KiB") ? 1 / 1024 : 1 / 1048576;
      c = $NF; sub(/%$/, "", c); printf "%s %.1f %.1f\n", n, v * f, c }' >>"$1"
  echo "--" >>"$1"
}

# median_of FILE COLUMN SERVICE: the median of a service's column over the samples in FILE.
median_of() {
  awk -v s="$3" -v c="$2" '$1 == s { print $c }' "$1" | sort -n |
    awk '{ a[NR] = $1 } END { if (NR == 0) print "-"; else print a[int((NR + 1) / 2)] }'
}
peak_of() { awk -v s="$2" '$1 == s && $2 > m { m = $2 } END { if (m == "") print "-"; else printf "%.0f", m }' "$1"; }
# The lab's total memory in each sample, then the highest.
peak_total() { awk '$1 == "--" { if (t > m) m = t; t = 0; next } { t += $2 } END { if (m == "") print "-"; else printf "%.0f", m }' "$1"; }

[ -f dist/app/api/main.js ] || { echo "bench-lab: dist/ missing: make build first" >&2; exit 1; }
refuse_running_lab bench-lab
trap cleanup EXIT
trap 'exit 130' INT TERM
test_engine_up
log "platform images (test/lab/images/build.sh)"
timeout 3000 bash test/lab/images/build.sh 2>&1 | sed -u 's/^/        /'
mock_api_artefacts local/node-min:20 soar-lab/mock-api-artefacts:lab-test

now_ms() { echo $(($(date +%s%N) / 1000000)); }
seconds_since() { awk -v t="$1" -v n="$(now_ms)" 'BEGIN { printf "%.1f", (n - t) / 1000 }'; }

log "make up"
t=$(now_ms)
make_lab up >"$WORK/up.log" 2>&1 || { cat "$WORK/up.log"; exit 1; }
UP_SECONDS=$(seconds_since "$t")
log "resting ${REST_SECONDS} s, then ${SAMPLES} samples"
sleep "$REST_SECONDS"
for ((i = 0; i < SAMPLES; i++)); do
  stats_once "$WORK/idle"
  sleep 5
done

# Each process of n8n, by resident memory: which of them (n8n, its task runner) costs.
# shellcheck disable=SC2016 # expanded by the container's shell
docker exec "$(container_of soar-lab n8n)" sh -c 'for p in /proc/[0-9]*; do
  r=$(sed -n "s/^VmRSS: *//p" "$p/status" 2>/dev/null); [ -n "$r" ] || continue
  case "$(head -c 5 "$p/cmdline")" in sh*) continue ;; esac
  echo "$r $(tr "\\0" " " <"$p/cmdline" | cut -c1-70)"; done' 2>/dev/null | sort -rn | sed "s/^/n8n: /" >>"$WORK/processes"

STAGE=${CHECK_STAGE-block}
busy="no check (CHECK_STAGE empty)"
: >"$WORK/busy"
if [ -n "$STAGE" ]; then
  log "make solution, then make check STAGE=$STAGE with docker stats every 2 s"
  make_lab solution >/dev/null
  (while true; do stats_once "$WORK/busy"; sleep 2; done) &
  PEAK_PID=$!
  started=$SECONDS
  rc=0
  make_lab check STAGE="$STAGE" >"$WORK/check.log" 2>&1 || rc=$?
  busy="busy: make check STAGE=$STAGE ($((SECONDS - started)) s)"
  kill "$PEAK_PID"
  wait "$PEAK_PID" 2>/dev/null || true
  PEAK_PID=""
  [ "$rc" = 0 ] || { tail -n 20 "$WORK/check.log"; echo "bench-lab: the check failed (exit $rc)" >&2; exit 1; }
fi

# shellcheck source=../docker/lab/stages.generated.sh
. docker/lab/stages.generated.sh
: >"$WORK/stages"
if [ "${STAGE_TIMES:-1}" != 0 ]; then
  log "each stage checked alone on the published solution"
  [ -n "$STAGE" ] || make_lab solution >/dev/null
  for stage in "${LAB_STAGES[@]}"; do
    t=$(now_ms)
    make_lab check STAGE="$stage" ARGS=--only >"$WORK/check.log" 2>&1 ||
      { tail -n 20 "$WORK/check.log"; echo "bench-lab: make check STAGE=$stage ARGS=--only failed" >&2; exit 1; }
    echo "$stage $(seconds_since "$t")" >>"$WORK/stages"
  done
fi
CLASS_N=${CLASS_N:-0}
class="no class (CLASS_N=0)"
if [ "$CLASS_N" -gt 0 ]; then
  log "make down, then make class-up of $CLASS_N labs"
  make_lab down >/dev/null
  for ((i = 1; i <= CLASS_N; i++)); do echo "t$i"; done >"$WORK/roster.txt"
  t=$(now_ms)
  make_lab class-up ROSTER="$WORK/roster.txt" >"$WORK/class.log" 2>&1 || { tail -n 30 "$WORK/class.log"; exit 1; }
  CLASS_SECONDS=$(seconds_since "$t")
  class="make class-up of $CLASS_N labs, images present: $CLASS_SECONDS s"
  LAB_FORCE_DOWN=1 make_lab class-down ROSTER="$WORK/roster.txt" >/dev/null 2>&1 || true
fi

echo
echo "make up to ready (images present): ${UP_SECONDS} s; $class"
if [ -s "$WORK/stages" ]; then
  echo "make check STAGE=<stage> ARGS=--only on the published solution (passing), command to return, s:"
  awk '{ printf "  %-18s %6s\n", $1, $2 }' "$WORK/stages"
fi
echo "one lab, $(nproc) cores, $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)," \
  "engine $(docker version -f '{{.Server.Version}}'), compose $(docker compose version --short);" \
  "idle: ${REST_SECONDS} s after make up, median of ${SAMPLES} samples; $busy"
printf '%-12s %12s %12s %14s\n' service 'idle MiB' 'idle % core' 'check peak MiB'
awk '$1 != "--" { print $1 }' "$WORK/idle" | sort -u | while read -r service; do
  printf '%-12s %12s %12s %14s\n' "$service" "$(median_of "$WORK/idle" 2 "$service")" \
    "$(median_of "$WORK/idle" 3 "$service")" "$(peak_of "$WORK/busy" "$service")"
done
idle_total=$(awk '$1 == "--" { print t; t = 0; next } { t += $2 }' "$WORK/idle" | sort -n |
  awk '{ a[NR] = $1 } END { printf "%.0f", a[int((NR + 1) / 2)] }')
printf '%-12s %12s %12s %14s\n' 'lab total' "$idle_total" '' "$(peak_total "$WORK/busy")"
echo "processes of n8n, idle (resident kB, command):"
sed 's/^/  /' "$WORK/processes"

# Each figure beside the one measured before the speed work and its goal: the 2-core host's (Docker 26.1,
# the pinned n8n; make check STAGE=<stage> ARGS=--only on the guide's workflow, make up with the images
# present, make class-up of 16 beside other work, the lab's idle total of docs/appliance.md), so a run on
# another machine reads as that machine's, not as a regression.
echo
echo "against the figures before (a 2-core host, Docker 26.1) and the goals; this run's machine above:"
printf '  %-38s %9s %7s %6s\n' figure 'this run' before goal
figure() { printf '  %-38s %9s %7s %6s\n' "$1" "$2" "$3" "$4"; }
figure 'make up to ready, s' "$UP_SECONDS" 36 20
for pair in webhook:4.1 validate:8.9 enrich:4.4 case-lookup:3.1 decide:4.7; do
  stage=${pair%%:*}
  figure "check $stage alone (passing), s" "$(awk -v s="$stage" '$1 == s { v = $2 } END { print (v == "" ? "-" : v) }' "$WORK/stages")" \
    "${pair#*:}" 3
done
[ "$CLASS_N" != 16 ] || figure 'make class-up of 16, s' "${CLASS_SECONDS:--}" 375 120
figure 'idle lab memory, MiB' "$idle_total" 542 461
