#!/usr/bin/env bash
# make bench-stages: how long a trainee waits for `make check STAGE=<stage> ARGS=--only`, each stage alone,
# passing and failing, on the pinned n8n.
#
# Method: one pinned n8n (SQLite, the lab's settings as make e2e-check starts it: test/e2e/run.sh) and one
# mock API, both on loopback, started once. Passing: the guide's workflows (docker/workflows/*.json)
# published, then each stage checked alone. Failing: each broken variant of app/check/variants.ts swapped
# in (as make e2e-check swaps them) and the stage it breaks checked alone; the Webhook stage, which no
# variant breaks, failing as a trainee's unpublished workflow fails it: nothing listening on the path. Each
# figure is the checker's whole process (node dist/app/check/cli.js, start to exit), the median of REPEAT
# runs; the verdict of every run is checked too (a pass passes, a failure fails), and a wrong one ends the
# bench with exit 1. Prints one table, then the machine; writes nothing else.
#
# Env: REPEAT (default 3), STAGES (default every stage), APPROVAL_TIMEOUT_SECONDS (default 20: the approve
# stage waits it out, and n8n's lateness with it), BENCH_OUT (a file: every check's output with its
# --timings table added to it), BENCH_LOG (n8n's start and the swaps; default /tmp/soar-bench-stages.log).
# Runs n8n: under the machine's heavy-suite lock where others share the host.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
cd "$ROOT"
export APPROVAL_TIMEOUT_SECONDS="${APPROVAL_TIMEOUT_SECONDS:-20}"

if [ "${BENCH_STAGES_ON_N8N:-0}" != 1 ]; then
  E2E_API_KEY=lab E2E_KEEP_ON_FAILURE=0 E2E_RUNNER="BENCH_STAGES_ON_N8N=1 bash '$HERE/stage-check.sh'" \
    bash test/e2e/run.sh 2>"${BENCH_LOG:-/tmp/soar-bench-stages.log}"
  exit $?
fi

# --- inside: API_URL, N8N_URL, N8N_API_KEY ---------------------------------------------------------------
SYSTEM_NODE="$(command -v node)"
# shellcheck source=../test/e2e/workflows.sh
. test/e2e/workflows.sh
WORK="$(mktemp -d "${TMPDIR:-/tmp}/soar-bench-stages.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
REPEAT="${REPEAT:-3}"
read -r -a ALL <<<"$("$SYSTEM_NODE" -e 'import("./dist/app/stages/stages.js").then((s) => console.log(s.STAGE_NAMES.join(" ")))')"
read -r -a STAGES <<<"${STAGES:-${ALL[*]}}"
declare -A BREAKS=()
while read -r name stage; do BREAKS[$stage]=$name; done < <("$SYSTEM_NODE" -e '
  import("./dist/app/check/variants.js").then((v) => {
    for (const [name, variant] of Object.entries(v.REFERENCE_VARIANTS)) console.log(name + " " + variant.breaks);
  })')

swap_in() {
  node dist/app/check/write-variant-cli.js "$1" "$WORK/$1" >/dev/null &&
    swap_workflows "$WORK/$1/n8n" "$WORK/$1/suspicious-login-response.json" \
      "$WORK/$1/suspicious-login-rollback.json" 2>/dev/null
}

# timed STAGE WANT [ARGS...]: the check's seconds, median of REPEAT; exits 1 when a verdict is not WANT.
timed() {
  local stage=$1 want=$2 i rc t0 t1 times=()
  shift 2
  for ((i = 0; i < REPEAT; i++)); do
    t0=$(date +%s%N)
    rc=0
    node dist/app/check/cli.js --stage "$stage" --only --target n8n --api "$API_URL" --n8n "$N8N_URL" \
      --report "$WORK/report.json" --timings "$@" >"$WORK/out.txt" 2>&1 || rc=$?
    t1=$(date +%s%N)
    if [ -n "${BENCH_OUT:-}" ]; then echo "== $stage ($want)" && cat "$WORK/out.txt"; fi >>"${BENCH_OUT:-/dev/null}"
    if { [ "$want" = pass ] && [ "$rc" != 0 ]; } || { [ "$want" = fail ] && [ "$rc" = 0 ]; }; then
      echo "bench-stages: $stage was to $want, the checker exited $rc:" >&2
      cat "$WORK/out.txt" >&2
      exit 1
    fi
    times+=("$(((t1 - t0) / 10000000))")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { printf "%.2f", a[int((NR + 1) / 2)] / 100 }'
}

declare -A PASS=() FAIL=()
swap_in reference
for stage in "${STAGES[@]}"; do PASS[$stage]=$(timed "$stage" pass); done
for stage in "${STAGES[@]}"; do
  if [ "$stage" = webhook ]; then
    FAIL[$stage]=$(timed webhook fail --webhook-path not-published-here)
  elif [ -n "${BREAKS[$stage]:-}" ]; then
    swap_in "${BREAKS[$stage]}"
    FAIL[$stage]=$(timed "$stage" fail)
  else
    FAIL[$stage]=-
  fi
done

echo "make check STAGE=<stage> ARGS=--only on the pinned n8n: seconds, median of $REPEAT (approval limit ${APPROVAL_TIMEOUT_SECONDS} s)"
printf '  %-18s %8s %8s\n' stage passing failing
for stage in "${STAGES[@]}"; do printf '  %-18s %8s %8s\n' "$stage" "${PASS[$stage]}" "${FAIL[$stage]}"; done
echo "failing: the variant of app/check/variants.ts that breaks the stage; webhook: nothing listening on its path"
echo "machine: $(nproc) cores, $(free -g | awk '/^Mem:/ { print $2 }') GiB, $(uname -sr), node $(node --version), n8n 2.41.1 (SQLite, loopback)"
