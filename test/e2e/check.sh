#!/usr/bin/env bash
# make e2e-check: the stage checker on the pinned n8n (no Docker), on ONE n8n and one mock API started
# for the whole suite by test/e2e/run.sh (this script, run again inside it, is its runner):
#   1. each broken variant of the reference workflow (app/check/variants.ts REFERENCE_VARIANTS, written as
#      n8n exports by app/check/write-variant-cli.ts) fails exactly the stage it breaks, with its hint (the
#      webhook's, a Webhook on a wrong path, stops the check there: exit 2 and the webhook stage failed)
#      (test/e2e/variant-verdict.ts; checked with --only, so each variant costs one stage, not all of them);
#   2. then the reference workflows (the guide's) pass every stage, with the Webhook's execution data read
#      through n8n's public API, on the n8n that ran every variant before them (their runs stay in its
#      database), the last variant's workflow left with a run waiting for an approval (the swap must stop
#      it). That check all is the n8n side of the twins (test/e2e/twins.ts): every scenario of the checker
#      and every case of the acceptance matrix, run on n8n and then on the simulator (app/simulator, the
#      same workflows, the same mock API and approval limit), must leave the same destination state;
#   3. a busy host (check-busy.mjs): n8n paused with a run in flight past the phase limit makes that
#      run's lines UNJUDGED ("n8n did not run it within N s"), never FAIL. Last: n8n is paused for it, and
#      the run is kept in flight by holding its first request to the mock API.
# Between runs the next run's workflows replace the former's through n8n's public API (swap_workflows in
# test/e2e/workflows.sh): every unfinished run stopped (none may be left), the workflows updated in place
# and published. The checker finds a stimulus's run by its own random event_id and its start time, so a
# former run's executions cannot be taken for the next run's; 2 shows both. Exit 0 when all of it holds.
# Reports: reports/e2e-check-<variant>.json, reports/e2e-check-reference.json (n8n's check all),
# reports/e2e-twins.json, reports/e2e-check-busy.json.
# Env knobs: E2E_CHECK_VARIANTS="a b" (default: every variant; "": none), E2E_CHECK_SKIP_REFERENCE=1 (and the twins),
# E2E_CHECK_SKIP_BUSY=1, TWINS_CHANGE_NODE=1|<variant> (the simulator's copy changed: twins must fail).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$ROOT"
export APPROVAL_TIMEOUT_SECONDS="${APPROVAL_TIMEOUT_SECONDS:-20}"
log() { echo "[e2e-check] $(date -u +%H:%M:%S) $*" >&2; }

# --- as make starts it: one n8n and one mock API for the suite, this script run inside -----------------
if [ "${E2E_CHECK_ON_N8N:-0}" != 1 ]; then
  t=$(date +%s)
  rc=0
  E2E_API_KEY=lab E2E_RUNNER="E2E_CHECK_ON_N8N=1 bash '$HERE/check.sh'" bash "$HERE/run.sh" || rc=$?
  log "n8n started 1 time for the suite; $(($(date +%s) - t)) s in all, exit $rc"
  exit "$rc"
fi

# --- inside: API_URL, N8N_URL, N8N_API_KEY (the lab's scopes) -------------------------------------------
SYSTEM_NODE="$(command -v node)"
TSX=("$SYSTEM_NODE" --import tsx)
# shellcheck source=workflows.sh
. "$HERE/workflows.sh"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/soar-e2e-check.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
mkdir -p reports

# A variant's (or the reference's) exports written and swapped in on the suite's n8n; 2: it failed. The
# writer is the build's (make builds it first; node starts it in a fraction of tsx's time).
swap_in() {
  local name=$1
  node dist/app/check/write-variant-cli.js "$name" "$WORK/$name" >/dev/null || return 2
  swap_workflows "$WORK/$name/n8n" "$WORK/$name/suspicious-login-response.json" \
    "$WORK/$name/suspicious-login-rollback.json" || return 2
}

# One variant: swapped in, its stage checked alone; returns the checker's exit (2: the swap failed).
run() {
  local name=$1 stage=$2 report=$3
  swap_in "$name" || return 2
  node dist/app/check/cli.js --stage "$stage" --only --target n8n --api "$API_URL" --n8n "$N8N_URL" --report "$report"
}

# A run the former workflows leave waiting for an approval nobody gives: left alone it would time out and
# write into the mock API in the middle of the next run's checks. Waited for until the approval request
# is in the mock API's notifications (the run then waits); the next swap must stop it.
leave_a_run_waiting() {
  curl -s -o /dev/null --max-time 3 -X POST "$N8N_URL/webhook/suspicious-login" -H 'content-type: application/json' \
    -d '{"event_id": "evt-e2e-left-waiting", "event_type": "suspicious_login", "user": "lab-admin",
      "source_ip": "203.0.113.66", "failed_attempts": 7, "successful_login": true, "confidence": 92,
      "environment": "training"}' || true
  for _ in $(seq 1 60); do
    curl -fsS "$API_URL/state" | grep -q 'evt-e2e-left-waiting' && return 0
    sleep 0.25
  done
  return 1
}

failed=0
# Every variant, in the order of the stages they break: the last (rollback's) asks for approvals, so that
# it can leave a run waiting for the reference's swap to stop.
# Each variant's name and the stage it breaks, read once.
declare -A BREAKS=()
ORDER=()
while read -r name stage; do
  BREAKS[$name]=$stage
  ORDER+=("$name")
done < <("${TSX[@]}" -e '
  Promise.all([import("./app/check/variants.ts"), import("./app/stages/stages.ts")]).then(([v, s]) => {
    const at = ([, variant]) => s.STAGE_NAMES.indexOf(variant.breaks);
    for (const [name, variant] of Object.entries(v.REFERENCE_VARIANTS).sort((a, b) => at(a) - at(b)))
      console.log(name + " " + variant.breaks);
  })')
[ ${#ORDER[@]} -gt 0 ] || { log "no variant read from app/check/variants.ts"; exit 2; }
variants="${E2E_CHECK_VARIANTS-${ORDER[*]}}"
for name in $variants; do
  stage="${BREAKS[$name]:-}"
  [ -n "$stage" ] || { log "$name: no such variant in app/check/variants.ts"; failed=1; continue; }
  report="reports/e2e-check-$name.json"
  t=$(date +%s)
  rc=0
  run "$name" "$stage" "$report" || rc=$?
  # Exit 1 and exactly its stage failed, with its hint: anything else (a pass, a setup error) fails this test.
  # A Webhook on a wrong path stops the check in one line, the webhook stage failed (exit 2: nothing listens).
  want_rc=1
  [ "$stage" = webhook ] && want_rc=2
  if [ "$rc" = "$want_rc" ] && "${TSX[@]}" "$HERE/variant-verdict.ts" "$name" "$report"; then
    log "$name: fails $stage as it must, with its hint ($(($(date +%s) - t)) s)"
  else
    log "$name: did NOT fail exactly $stage with its hint (exit $rc; $report)"; failed=1
  fi
done
if [ "${E2E_CHECK_SKIP_REFERENCE:-0}" != 1 ]; then
  t=$(date +%s)
  if ! leave_a_run_waiting; then
    # The last variant asks for no approval (a half-built one): the whole workflow leaves the run waiting.
    log "the last variant sent no approval request: the run is left waiting by the whole workflow"
    { swap_workflows "$WORK/waiting" docker/workflows/*.json && leave_a_run_waiting; } ||
      { log "no run left waiting: the former workflow sent no approval request"; failed=1; }
  fi
  rm -f reports/e2e-check-reference.json
  rc=0
  swap_in reference || rc=$?
  # The run left waiting was stopped before the reference was swapped in.
  if [ "$rc" = 0 ] && grep -q '^stopped [1-9]' "$WORK/reference/n8n/swap.log"; then
    log "the run the variant left waiting was stopped before the reference's checks"
  else
    log "the run the variant left waiting was NOT stopped before the reference's checks"; failed=1
  fi
  # The reference's check all on n8n (reports/e2e-check-reference.json) is the twins' n8n side.
  if [ "$rc" = 0 ]; then "${TSX[@]}" "$HERE/twins.ts" || rc=$?; fi
  if node -e 'process.exit(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).passed ? 0 : 1)' \
    reports/e2e-check-reference.json 2>/dev/null; then
    log "reference: every stage passed (on the n8n that ran the variants)"
  else
    log "reference: FAILED (reports/e2e-check-reference.json)"; failed=1
  fi
  if [ "$rc" = 0 ]; then
    log "twins: the simulator left the same state as n8n in every scenario ($(($(date +%s) - t)) s with the reference's check)"
  else
    log "twins: FAILED, exit $rc (reports/e2e-twins.json)"; failed=1
  fi
fi
# A busy host: n8n paused (SIGSTOP) with a run in flight, past the phase limit: UNJUDGED, never FAIL.
if [ "${E2E_CHECK_SKIP_BUSY:-0}" != 1 ]; then
  t=$(date +%s)
  # check-busy.mjs swaps in its own copies of docker/workflows/*.json (their mock API held once).
  if BUSY_DIR="$WORK/busy" "$SYSTEM_NODE" "$HERE/check-busy.mjs"; then
    log "busy n8n: the late run is UNJUDGED with its run's id, nothing FAILs ($(($(date +%s) - t)) s)"
  else
    log "busy n8n: FAILED (reports/e2e-check-busy.json)"; failed=1
  fi
fi
exit "$failed"
