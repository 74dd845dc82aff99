#!/usr/bin/env bash
# make bench-neighbour: does one trainee's runaway workflow slow another trainee's check?
#
# Method: two exercise labs on the tests' engine (`make up LAB=a`, `make up LAB=b`, the platform images
# built as make test-lab builds them); the reference published in b (make solution LAB=b), and in a the
# two runaways of bench/runaway/ published through n8n's public API: a Code node that never ends, and a
# cycle through a Wait of 0 s. For each processor limit of LIMITS (n8n's, in cores,
# as LAB_CPUS gives it, the other services at compose's limits; 0: no container has one; set on the running
# containers of both labs with `docker update --cpus`), `make check LAB=b
# STAGE=$STAGE` is timed ROUNDS times on a quiet host, then ROUNDS times while each runaway runs in a
# (started 5 s before, two runs of it at once; `both`: one run of each at once, n8n's two
# processes busy; stopped with `make reset LAB=a` after), with docker stats
# of lab a sampled every 2 s meanwhile (its busiest service and its total, in % of one core).
# Prints one table: the median check time quiet and beside each runaway, and their ratio. Ends with
# `make down` of both labs. Env: LIMITS (default "0 1 0.5"), RUNAWAYS (default "code-loop wait-cycle
# both"), ROUNDS (default 3), STAGE (default decide),
# LAB_TEST_ENGINE_DIR / LAB_TEST_NETNS (the engine). Refuses to run beside a lab of this checkout.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
WORK=$(mktemp -d /tmp/soar-lab-neighbour.XXXXXX)
LOG_TAG=bench-neighbour
# shellcheck source=../test/lib/engine.sh
. test/lib/engine.sh
# shellcheck source=../test/lab/lib.sh
. test/lab/lib.sh

LIMITS=${LIMITS:-0 1 0.5}
ROUNDS=${ROUNDS:-3}
STAGE=${STAGE:-decide}
RUNAWAYS=${RUNAWAYS:-code-loop wait-cycle both}
export APPROVAL_TIMEOUT_SECONDS=${APPROVAL_TIMEOUT_SECONDS:-20} LAB_SAVE_DIR=$WORK/saved
unset LAB LAB_MODE LAB_SUBNET LAB_EDITOR_PORT LAB_CONSOLE_PORT LAB_BIND LAB_CPUS
SAMPLER_PID=""

# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  [ -n "$SAMPLER_PID" ] && kill "$SAMPLER_PID" 2>/dev/null
  if engine_answers; then
    for lab in a b; do LAB=$lab LAB_FORCE_DOWN=1 timeout 300 bash docker/lab.sh down >/dev/null 2>&1; done
  fi
  stop_engine
  rm -rf "$WORK"
  exit "$rc"
}

# limit_all CORES: n8n of both labs limited to CORES, the other services to compose's
# limits (as LAB_CPUS=CORES makes them); 0: no container of either lab has a limit.
limit_all() {
  local id service cpus
  docker ps -q --filter label=com.docker.compose.project | while read -r id; do
    service=$(docker inspect -f '{{index .Config.Labels "com.docker.compose.service"}}' "$id")
    case "$1:$service" in
      0:*) cpus=0 ;;
      *:n8n) cpus=$1 ;;
      *) cpus=$(sed -n "s/^$service //p" "$WORK/compose-cpus") ;;
    esac
    docker update --cpus "$cpus" "$id" >/dev/null
  done
}

# timed_check: make check LAB=b STAGE=...; prints its seconds, or FAILED (the log kept).
timed_check() {
  local started=$SECONDS
  if make_lab check LAB=b STAGE="$STAGE" >"$WORK/check.log" 2>&1; then
    echo $((SECONDS - started))
  else
    cp "$WORK/check.log" "$WORK/failed-$(date +%s).log"
    echo FAILED
  fi
}
median() { tr ' ' '\n' | grep -E '^[0-9]+$' | sort -n | awk '{ a[NR] = $1 } END { print (NR ? a[int((NR + 1) / 2)] : "-") }'; }

# Lab a's processor while a runaway runs: one "service %" line a container and sample, into FILE.
sample_a() {
  while true; do
    # shellcheck disable=SC2046 # one container id a word
    docker stats --no-stream --format '{{.Name}} {{.CPUPerc}}' \
      $(docker ps -q --filter label=com.docker.compose.project=soar-lab-a) 2>/dev/null |
      awk '{ n = $1; sub(/^soar-lab-a-/, "", n); sub(/-[0-9]+$/, "", n); c = $2; sub(/%$/, "", c); print n, c }' >>"$1"
    echo "-- 0" >>"$1"
    sleep 2
  done
}
# busiest FILE: "service median%" of a's busiest service, and the median of a's total, over the samples.
busiest() {
  local service best="" top=-1 m total
  while read -r service; do
    m=$(awk -v s="$service" '$1 == s { print $2 }' "$1" | median_of)
    if awk -v m="$m" -v t="$top" 'BEGIN { exit !(m > t) }'; then best=$service top=$m; fi
  done < <(awk '$1 != "--" { print $1 }' "$1" | sort -u)
  total=$(awk '$1 == "--" { print t + 0; t = 0; next } { t += $2 }' "$1" | median_of)
  printf '%s %.0f%%, lab %.0f%%' "${best:-none}" "${top#-}" "$total"
}
# median_of: the median of the numbers on stdin, one a line.
median_of() { sort -n | awk '{ a[NR] = $1 } END { print (NR ? a[int((NR + 1) / 2)] : 0) }'; }

[ -f dist/app/api/main.js ] || { echo "bench-neighbour: dist/ missing: make build first" >&2; exit 1; }
refuse_running_lab bench-neighbour
trap cleanup EXIT
trap 'exit 130' INT TERM
test_engine_up
log "platform images (test/lab/images/build.sh)"
timeout 3000 bash test/lab/images/build.sh 2>&1 | sed -u 's/^/        /' | tail -n 1
mock_api_artefacts local/node-min:20 soar-lab/mock-api-artefacts:lab-test

for lab in a b; do
  log "make up LAB=$lab"
  make_lab up LAB="$lab" >"$WORK/up-$lab.log" 2>&1 || { cat "$WORK/up-$lab.log"; exit 1; }
done
make_lab solution LAB=b >/dev/null
publish_in a bench/runaway/*.json
editor_a=http://127.0.0.1:$(env_of labs/a.env LAB_EDITOR_PORT)
# Each service's limit as compose gave it (cores), restored for every limit but 0.
docker ps -q --filter label=com.docker.compose.project=soar-lab-a | xargs docker inspect \
  -f '{{index .Config.Labels "com.docker.compose.service"}} {{.HostConfig.NanoCpus}}' |
  awk '{ printf "%s %g\n", $1, $2 / 1e9 }' >"$WORK/compose-cpus"
log "compose's limits (cores): $(paste -sd ' ' "$WORK/compose-cpus")"
sleep 30

: >"$WORK/table"
for limit in $LIMITS; do
  log "each container limited to $limit core(s) (0: none)"
  limit_all "$limit"
  quiet=""
  for ((i = 0; i < ROUNDS; i++)); do quiet="$quiet $(timed_check)"; done
  row="$limit | quiet:$quiet"
  for runaway in $RUNAWAYS; do
    case $runaway in
      both) paths="runaway-loop runaway-wait" ;;
      *) path=$(sed -nE 's/.*"path": "(runaway-[a-z]+)".*/\1/p' "bench/runaway/$runaway.json") paths="$path $path" ;;
    esac
    : >"$WORK/cpu"
    times=""
    for ((i = 0; i < ROUNDS; i++)); do
      for path in $paths; do
        in_ns curl -fsS -o /dev/null -X POST "$editor_a/webhook/$path" -d '{}' -H 'content-type: application/json'
      done
      sleep 5
      sample_a "$WORK/cpu" &
      SAMPLER_PID=$!
      times="$times $(timed_check)"
      kill "$SAMPLER_PID"
      wait "$SAMPLER_PID" 2>/dev/null || true
      SAMPLER_PID=""
      make_lab reset LAB=a >/dev/null 2>&1 || true
      # The n8n a Wait cycle filled may be restarting; let lab a settle before the next round.
      sleep 10
    done
    row="$row | $runaway:$times (a: $(busiest "$WORK/cpu"))"
    echo "$limit $runaway $(median <<<"$quiet") $(median <<<"$times") $(busiest "$WORK/cpu")" >>"$WORK/table"
  done
  log "$row"
done

echo
echo "two labs, $(nproc) cores, $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)," \
  "engine $(docker version -f '{{.Server.Version}}'), compose $(docker compose version --short);" \
  "make check LAB=b STAGE=$STAGE, median of $ROUNDS, beside a runaway in lab a (two runs of it at once)"
printf '%-12s %-11s %8s %10s %7s  %s\n' 'limit (cores)' runaway 'quiet s' 'beside s' ratio "lab a's processor meanwhile (busiest service, whole lab; % of one core)"
while read -r limit runaway quiet beside rest; do
  printf '%-12s %-11s %8s %10s %7s  %s\n' "$limit" "$runaway" "$quiet" "$beside" \
    "$(awk -v q="$quiet" -v b="$beside" 'BEGIN { if (q > 0 && b > 0) printf "%.2f", b / q; else print "-" }')" "$rest"
done <"$WORK/table"
ls "$WORK"/failed-*.log >/dev/null 2>&1 && { echo "some checks FAILED:"; tail -n 15 "$WORK"/failed-*.log; exit 1; }
exit 0
