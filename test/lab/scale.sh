#!/usr/bin/env bash
# make test-class-scale N=16: how many trainees one host holds, measured (not part of CI: it takes long).
# On one engine (a private one, as make test-lab starts it; or $DOCKER_HOST), with the images present:
#   1. `make class-up` of N labs from a roster, timed; each lab's memory and processor idle (docker stats);
#   2. the scripted trainee's whole workflow published in every lab (test/lab/trainee.ts) but the last,
#      which holds a broken variant of the reference (SCALE_VARIANT, default threshold-above-80: it FAILs
#      decide);
#   3. the burst: `make check STAGE=block` in all N labs at the same time: each one's time and verdict
#      (a FAIL in a correct lab, or a PASS in the broken one, is wrong; UNJUDGED, the host busy, is not),
#      each lab's peak memory (docker stats), the host's free memory and load (/proc), every container
#      killed for memory (OOMKilled);
#   4. the class shape (test/lab/class-shape.sh): every trainee checks from the console every 2-4 minutes
#      for SCALE_MINUTES (default 20; think times from SCALE_SEED), the broken lab the stage it breaks,
#      while lab 2's workflow runs away (a Code node that never ends, started every minute); then each
#      request alone on the host, the figure the class's check times are held against;
#   5. for each further step k of SCALE_STEPS (default none; e.g. "12 8 4"): the burst in k labs, labs
#      k+1..N stopped (`make stop`), held to the strict bar: every check passes within 2x a lone one;
#   6. `make class-down` (every lab saved first, as a trainer's would be).
# With SCALE_BIND=<address> the class comes up over TLS on that address (`make class-up ... LAB_BIND=`),
# an address of the engine's host (on its namespace's loopback interface) as a classroom address would
# be; the roster's links must be https:// and each console must answer over TLS with the class CA's
# certificate. With SCALE_IDLE_ONLY=1 only steps 1 and 6 run: the class's memory idle, with and without
# TLS alike.
# The burst passes with no wrong verdict and nothing killed; the class shape with no wrong verdict, every
# check run to a verdict, the 95th-percentile check time of the labs neither broken nor running away within
# 2x the same requests alone, nothing killed.
# Ends with "N passed, N failed". Figures on stdout and in $SCALE_REPORT (default reports/class-scale.txt).
# Env: N (default 16), SCALE_MINUTES, SCALE_SEED (default 1), SCALE_STEPS, SCALE_VARIANT,
# APPROVAL_TIMEOUT_SECONDS (default 20), SCALE_STAGE (the burst's, default block), SCALE_BIND (an IPv4
# address; default none: loopback), SCALE_IDLE_ONLY (default 0).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
WORK=$(mktemp -d /tmp/soar-lab-scale.XXXXXX)
LOG_TAG=class-scale
# shellcheck source=../lib/engine.sh
. test/lib/engine.sh
# shellcheck source=lib.sh
. test/lab/lib.sh
# shellcheck source=class-shape.sh
. test/lab/class-shape.sh

N=${N:-16}
STAGE=${SCALE_STAGE:-block}
REPORT=${SCALE_REPORT:-$ROOT/reports/class-scale.txt}
export APPROVAL_TIMEOUT_SECONDS=${APPROVAL_TIMEOUT_SECONDS:-20} LAB_HEALTH_TIMEOUT=${LAB_HEALTH_TIMEOUT:-1800}
export LAB_SAVE_DIR=$WORK/saved
unset LAB LAB_MODE LAB_SUBNET LAB_EDITOR_PORT LAB_CONSOLE_PORT LAB_BIND
ROSTER_FILE=$WORK/class.txt
SAMPLER_PID="" RUNAWAY_PID=""
if ! [[ $N =~ ^[1-9][0-9]?$ ]] || [ "$N" -gt 64 ]; then
  echo "class-scale: N=$N is not a number of labs (1-64)" >&2
  exit 2
fi
SCALE_MINUTES=${SCALE_MINUTES:-20}
SCALE_SEED=${SCALE_SEED:-1}
BROKEN_VARIANT=${SCALE_VARIANT:-threshold-above-80}
STEPS=${SCALE_STEPS:-}
for value in "$SCALE_MINUTES" "$SCALE_SEED"; do
  [[ $value =~ ^[0-9]{1,4}$ ]] || { echo "class-scale: SCALE_MINUTES and SCALE_SEED are whole numbers" >&2; exit 2; }
done
for k in $STEPS; do
  if ! [[ $k =~ ^[1-9][0-9]?$ ]] || [ "$k" -gt "$N" ]; then
    echo "class-scale: SCALE_STEPS=$STEPS: each step is a number of labs from 1 to N" >&2
    exit 2
  fi
done
STEPS=$(tr ' ' '\n' <<<"$STEPS" | { grep . || true; } | sort -rnu | paste -sd ' ')
SCALE_BIND=${SCALE_BIND:-}
SCALE_IDLE_ONLY=${SCALE_IDLE_ONLY:-0}
if [ -n "$SCALE_BIND" ] && ! [[ $SCALE_BIND =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ ]]; then
  echo "class-scale: SCALE_BIND=$SCALE_BIND is not an IPv4 address" >&2
  exit 2
fi
# labs/tls/ (the class CA) removed at the end when this run made it.
TLS_DIR_MADE=0
[ -d labs/tls ] || TLS_DIR_MADE=1

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  [ -n "$SAMPLER_PID" ] && kill "$SAMPLER_PID" 2>/dev/null
  [ -n "$RUNAWAY_PID" ] && kill "$RUNAWAY_PID" 2>/dev/null
  if engine_answers && [ -f "$ROSTER_FILE" ]; then
    LAB_FORCE_DOWN=1 timeout 1800 make -s --no-print-directory class-down ROSTER="$ROSTER_FILE" >/dev/null 2>&1
  fi
  [ -z "$SCALE_BIND" ] || in_ns ip addr del "$SCALE_BIND/32" dev lo 2>/dev/null
  [ "$TLS_DIR_MADE" = 0 ] || rm -rf labs/tls
  stop_engine
  rm -rf "$WORK"
  exit "$rc"
}

[ -f dist/app/api/main.js ] || { echo "class-scale: dist/ missing: run npm run build first" >&2; exit 1; }
refuse_running_lab class-scale
trap cleanup EXIT
trap 'exit 130' INT TERM
test_engine_up
log "platform images"
timeout 3000 bash test/lab/images/build.sh 2>&1 | sed -u 's/^/        /' | tail -n 2
mock_api_artefacts local/node-min:20 soar-lab/mock-api-artefacts:lab-test
make_lab() { as_trainer timeout 3600 make -s --no-print-directory "$@"; }

names() { for i in $(seq -w 1 "$N"); do echo "t$i"; done; }
names >"$ROSTER_FILE"
host_free_mib() { awk '/^MemAvailable:/ {printf "%d", $2 / 1024}' /proc/meminfo; }
load1() { cut -d ' ' -f 1 /proc/loadavg; }
# Every running lab now, one "name MiB CPU%" a line (CPU% of one core), from one docker stats call.
class_stats() {
  docker stats --no-stream --format '{{.Name}} {{.CPUPerc}} {{.MemUsage}}' |
    awk '$1 ~ /^soar-lab-t[0-9]+-/ {
      lab = $1; sub(/^soar-lab-/, "", lab); sub(/-.*/, "", lab)
      cpu = $2; sub(/%$/, "", cpu); v = $3; u = v; gsub(/[0-9.]/, "", u); sub(/[A-Za-z]+$/, "", v)
      f = (u == "GiB") ? 1024 : (u == "MiB") ? 1 : (u == "KiB") ? 1 / 1024 : 1 / 1048576
      m[lab] += v * f; c[lab] += cpu
    } END { for (l in m) printf "%s %d %.1f\n", l, m[l], c[l] }' | sort
}
# Memory and processor of every running service of the class, one "service MiB CPU%" a line, summed over labs.
service_stats() {
  docker stats --no-stream --format '{{.Name}} {{.CPUPerc}} {{.MemUsage}}' |
    awk '$1 ~ /^soar-lab-t[0-9]+-/ {
      s = $1; sub(/^soar-lab-t[0-9]+-/, "", s); sub(/-[0-9]+$/, "", s)
      cpu = $2; sub(/%$/, "", cpu); v = $3; u = v; gsub(/[0-9.]/, "", u); sub(/[A-Za-z]+$/, "", v)
      f = (u == "GiB") ? 1024 : (u == "MiB") ? 1 : (u == "KiB") ? 1 / 1024 : 1 / 1048576
      m[s] += v * f; c[s] += cpu; n[s]++
    } END { for (k in m) printf "%s: %d MiB, %.1f%% of a core per lab\n", k, m[k] / n[k], c[k] / n[k] }' | sort
}
oom_killed() { docker ps -aq | xargs -r docker inspect -f '{{.Name}} {{.State.OOMKilled}}' | grep -c ' true$' || true; }
# median FILE COLUMN: the median of a column of numbers.
median() { awk -v c="$2" '{print $c}' "$1" | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

{
  echo "class scale: N=$N, steps $STEPS, stage $STAGE, approval limit ${APPROVAL_TIMEOUT_SECONDS} s"
  echo "machine: $(nproc) cores, $(awk '/^MemTotal:/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo), $(uname -r); engine $(docker version -f '{{.Server.Version}}'), compose $(docker compose version --short)"
  echo "before class-up: free $(host_free_mib) MiB, load $(load1)"
} | tee "$WORK/report"

bind_args=()
if [ -n "$SCALE_BIND" ]; then
  in_ns ip addr add "$SCALE_BIND/32" dev lo
  bind_args=(LAB_BIND="$SCALE_BIND")
  echo "over TLS: make class-up ... LAB_BIND=$SCALE_BIND (the class CA's certificates)" | tee -a "$WORK/report"
fi
log "make class-up of $N labs${SCALE_BIND:+ over TLS on $SCALE_BIND}"
started=$SECONDS
up_rc=0
make_lab class-up ROSTER="$ROSTER_FILE" "${bind_args[@]}" >"$WORK/class-up.log" 2>&1 || up_rc=$?
UP_SECONDS=$((SECONDS - started))
[ "$up_rc" = 0 ] || tail -n 20 "$WORK/class-up.log"
check "make class-up of $N labs (${UP_SECONDS} s, exit $up_rc)" test "$up_rc" = 0
[ "$up_rc" = 0 ] || summary
if [ -n "$SCALE_BIND" ]; then
  check "the roster's $N console links are https://$SCALE_BIND:..." \
    test "$(grep -c "https://$SCALE_BIND:" labs/class-roster.txt)" -ge "$N"
  tls_answers=0
  for n in $(names); do
    port=$(env_of "labs/$n.env" LAB_CONSOLE_PORT)
    ! in_ns curl -sS -o /dev/null --max-time 10 --cacert labs/tls/class-ca.pem "https://$SCALE_BIND:$port/api/session" ||
      tls_answers=$((tls_answers + 1))
  done
  check "each console answers over TLS with the class CA's certificate ($tls_answers of $N)" test "$tls_answers" = "$N"
fi
sleep 60
class_stats >"$WORK/idle"
{
  echo "class-up: ${UP_SECONDS} s; idle 60 s later: free $(host_free_mib) MiB, load $(load1)"
  echo "per lab idle: MiB $(awk '{print $2}' "$WORK/idle" | sort -n | paste -sd ' '); % of a core $(awk '{print $3}' "$WORK/idle" | sort -n | paste -sd ' ')"
  echo "per service idle (mean over labs):"
  service_stats | sed 's/^/  /'
} | tee -a "$WORK/report"

# class_down_and_report WHY: step 6, the class taken down (each lab saved first) and timed, the report
# written, the closing line (its status this function's: under set -e a failed check ends the script).
class_down_and_report() {
  log "make class-down$1"
  started=$SECONDS
  check "make class-down" make_lab class-down ROSTER="$ROSTER_FILE"
  echo "class-down (each lab saved first): $((SECONDS - started)) s" | tee -a "$WORK/report"
  rm -f "$ROSTER_FILE"
  mkdir -p "$(dirname "$REPORT")"
  cp "$WORK/report" "$REPORT"
  echo "report: ${REPORT#"$ROOT"/}"
  summary
}
if [ "$SCALE_IDLE_ONLY" = 1 ]; then
  class_down_and_report " (SCALE_IDLE_ONLY=1: the idle figures only)"
  exit 0
fi

BROKEN_LAB=$(names | tail -n 1)
# A trainee whose workflow runs away: lab 2 (of 3 or more) also holds a Code node that never ends
# (bench/runaway/code-loop.json), started again every minute through the class shape (n8n stops it at 60 s).
RUNAWAY_LAB=""
[ "$N" -ge 3 ] && RUNAWAY_LAB=$(names | sed -n 2p)
# The stage the variant breaks, and the variant's exports (the reference with that one mistake).
read -r BROKEN_STAGE _ <<<"$(npx tsx app/check/write-variant-cli.ts "$BROKEN_VARIANT" "$WORK/variant")"
# shellcheck source=../../docker/lab/stages.generated.sh
. docker/lab/stages.generated.sh
SHAPE_STAGES="${LAB_STAGES[*]}"
log "the scripted trainee publishes the whole workflow in every lab but $BROKEN_LAB, which gets $BROKEN_VARIANT"
unpublished=()
for n in $(names); do
  env=labs/$n.env
  if [ "$n" = "$BROKEN_LAB" ]; then
    publish_in "$n" "$WORK"/variant/*.json || unpublished+=("$n")
    continue
  fi
  TRAINEE_EMAIL=$(env_of "$env" N8N_OWNER_EMAIL) TRAINEE_PASSWORD=$(env_of "$env" N8N_OWNER_PASSWORD) \
    in_ns timeout 300 npx tsx test/lab/trainee.ts --n8n "http://127.0.0.1:$(env_of "$env" LAB_EDITOR_PORT)" --upto all \
    >"$WORK/trainee-$n.log" 2>&1 || { tail -n 3 "$WORK/trainee-$n.log"; unpublished+=("$n"); }
done
# One line: passes only when every lab holds what it should (a lab that did not would judge nothing).
check "the workflow published in $((N - 1)) labs, $BROKEN_VARIANT in $BROKEN_LAB${unpublished[*]:+ (not in: ${unpublished[*]})}" \
  test "${#unpublished[@]}" = 0
if [ -n "$RUNAWAY_LAB" ]; then
  check "a runaway Code node published beside the workflow in lab $RUNAWAY_LAB" publish_in "$RUNAWAY_LAB" bench/runaway/code-loop.json
fi

# check_lab NAME: make check LAB=NAME STAGE=...; "NAME SECONDS EXIT VERDICT" into $WORK/times.
check_lab() {
  local started=$SECONDS rc=0 expect=pass
  [ "$1" = "$BROKEN_LAB" ] && expect=fail
  make_lab check LAB="$1" STAGE="$STAGE" >"$WORK/check-$1.log" 2>&1 || rc=$?
  echo "$1 $((SECONDS - started)) $rc $(verdict "$expect" "$WORK/check-$1.log")" >>"$WORK/times"
}

# burst K RUNNING STRICT: labs 1..K running (K+1..RUNNING stopped first), one check alone in lab 1, then K at
# once. Holds every verdict right (UNJUDGED allowed) and nothing killed; STRICT also every check passing
# within 2x the lone one (the bar of "how many labs the host holds"). Returns whether it held.
burst() {
  local k=$1 running=$2 strict=$3 n started pids=() lone lone_rc lone_line all slowest med wrong unjudged errors oom before=$FAILED
  log "burst: $k labs check STAGE=$STAGE at once, $((N - k)) stopped"
  for n in $(names | sed -n "$((k + 1)),${running}p"); do
    make_lab stop LAB="$n" >"$WORK/stop-$n.log" 2>&1 || { tail -n 3 "$WORK/stop-$n.log"; fail "make stop LAB=$n"; }
  done
  sleep 30
  rm -f "$WORK/times" "$WORK/busy" "$WORK/host"
  check_lab "$(names | head -n 1)"
  lone_line=$(head -n 1 "$WORK/times")
  read -r _ lone lone_rc _ <<<"$lone_line"
  : >"$WORK/times"
  (while :; do { class_stats 2>/dev/null || true; } >>"$WORK/busy"; echo "host $(host_free_mib) $(load1)" >>"$WORK/host"; sleep 2; done) &
  SAMPLER_PID=$!
  started=$SECONDS
  for n in $(names | head -n "$k"); do check_lab "$n" & pids+=($!); done
  for pid in "${pids[@]}"; do wait "$pid" || true; done
  all=$((SECONDS - started))
  kill "$SAMPLER_PID" 2>/dev/null || true
  wait "$SAMPLER_PID" 2>/dev/null || true
  SAMPLER_PID=""
  slowest=$(awk '{print $2}' "$WORK/times" | sort -n | tail -n 1)
  med=$(median "$WORK/times" 2)
  wrong=$(awk '$4 == "wrong" {print $1}' "$WORK/times" | sort | paste -sd ' ')
  errors=$(awk '$4 == "error" {print $1}' "$WORK/times" | sort | paste -sd ' ')
  unjudged=$(awk '$4 == "unjudged"' "$WORK/times" | wc -l)
  oom=$(oom_killed)
  {
    echo "burst of $k labs ($((N - k)) stopped): lone ${lone} s (exit $lone_rc); all $k done after ${all} s; median ${med} s, slowest ${slowest} s ($(awk -v s="$slowest" -v l="$lone" 'BEGIN {printf "%.2f", s / l}')x the lone)"
    echo "  verdicts: right $(awk '$4 == "right"' "$WORK/times" | wc -l), unjudged $unjudged, wrong ${wrong:-none}, no verdict ${errors:-none}"
    echo "  per lab (s, exit, verdict): $(sort "$WORK/times" | awk '{printf "%s %s %s %s; ", $1, $2, $3, $4}')"
    echo "  per lab peak under the checks: MiB $(awk '{if ($2 > m[$1]) m[$1] = $2} END {for (k in m) print m[k]}' "$WORK/busy" | sort -n | paste -sd ' ')"
    echo "  host under the checks: lowest free $(awk '{print $2}' "$WORK/host" | sort -n | head -n 1) MiB, highest load $(awk '{print $3}' "$WORK/host" | sort -n | tail -n 1); containers killed for memory: $oom"
  } | tee -a "$WORK/report"
  burst_verdicts "$k" "$strict" "$WORK/times" "$lone_line" "$oom"
  [ "$FAILED" = "$before" ]
}

burst "$N" "$N" lenient || true
class_shape
RUNNING=$N
for k in $STEPS; do
  [ "$k" -lt "$N" ] || continue
  if burst "$k" "$RUNNING" strict; then
    echo "the largest class that holds the strict bar on this host: $k (of steps $STEPS)" | tee -a "$WORK/report"
    break
  fi
  RUNNING=$k
done

class_down_and_report ""
