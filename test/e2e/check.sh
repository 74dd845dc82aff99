#!/usr/bin/env bash
# make e2e-check: the stage checker on the pinned n8n (no Docker), on ONE n8n and one mock API started
# for the whole suite by test/e2e/run.sh (this script, run again inside it, is its runner):
#   1. each broken variant that exists as n8n JSON (app/check/n8n-variants.ts) fails the stage
#      it breaks (checked with --only, so each variant costs one stage, not all of them);
#   2. then the reference workflows pass every stage, with the Webhook's execution data read through n8n's
#      public API, on the n8n that ran every variant before them (their runs stay in its database), the
#      last variant's workflow left with a run waiting for an approval (the swap must stop it);
#   3. a busy host (check-busy.mjs): n8n paused with a run in flight past the phase limit makes that
#      run's lines UNJUDGED ("n8n did not run it within N s"), never FAIL. Last: n8n is paused for it.
# Between runs the next run's workflows replace the former's through n8n's public API (swap_workflows in
# test/e2e/workflows.sh): every unfinished run stopped (none may be left), the workflows updated in place
# and published. The checker finds a stimulus's run by its own random event_id and its start time, so a
# former run's executions cannot be taken for the next run's; 2 shows both. Exit 0 when all of it holds.
# Env knobs: E2E_CHECK_VARIANTS="a b" (default: every n8n variant), E2E_CHECK_SKIP_REFERENCE=1,
# E2E_CHECK_SKIP_BUSY=1.
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
# shellcheck source=workflows.sh
. "$HERE/workflows.sh"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/soar-e2e-check.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
mkdir -p reports

# One run: write the variant's JSON, swap it in on the suite's n8n, run the checker; returns its exit (2:
# the swap failed).
run() {
  local name=$1 stage=$2 only=$3 report=$4
  npx tsx app/check/write-variant-cli.ts "$name" "$WORK/$name" >/dev/null
  swap_workflows "$WORK/$name/n8n" "$WORK/$name/suspicious-login-response.json" \
    "$WORK/$name/suspicious-login-rollback.json" || return 2
  # shellcheck disable=SC2086 # $only is one word or none
  node dist/app/check/cli.js --stage "$stage" $only --target n8n --api "$API_URL" --n8n "$N8N_URL" --report "$report"
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
variants="${E2E_CHECK_VARIANTS:-$(node --import tsx -e 'import("./app/check/n8n-variants.ts").then((m) => console.log(Object.keys(m.N8N_VARIANTS).join(" ")))')}"
for name in $variants; do
  stage="$(node --import tsx -e 'import("./app/check/variants.ts").then((m) => console.log(m.REFERENCE_VARIANTS[process.argv[1]].breaks))' "$name")"
  report="reports/e2e-check-$name.json"
  t=$(date +%s)
  rc=0
  run "$name" "$stage" --only "$report" || rc=$?
  # Exit 1 and exactly its stage failed: anything else (a pass, a setup error) is a failure of this test.
  if [ "$rc" = 1 ] && node -e '
      const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
      const failed = r.stages.filter((s) => s.status === "fail").map((s) => s.stage);
      process.exit(failed.length === 1 && failed[0] === process.argv[2] ? 0 : 1);' "$report" "$stage"; then
    log "$name: fails $stage as it must ($(($(date +%s) - t)) s)"
  else
    log "$name: did NOT fail exactly $stage (exit $rc; $report)"; failed=1
  fi
done
if [ "${E2E_CHECK_SKIP_REFERENCE:-0}" != 1 ]; then
  t=$(date +%s)
  leave_a_run_waiting || { log "no run left waiting: the former workflow sent no approval request"; failed=1; }
  if run reference all "" reports/e2e-check-reference.json; then
    log "reference: every stage passed in $(($(date +%s) - t)) s (on the n8n that ran the variants)"
  else
    log "reference: FAILED (reports/e2e-check-reference.json)"; failed=1
  fi
  # The run left waiting was stopped before the reference was swapped in.
  if grep -q '^stopped [1-9]' "$WORK/reference/n8n/swap.log"; then
    log "the run the variant left waiting was stopped before the reference's checks"
  else
    log "the run the variant left waiting was NOT stopped before the reference's checks"; failed=1
  fi
fi
# A busy host: n8n paused (SIGSTOP) with a run in flight, past the phase limit: UNJUDGED, never FAIL.
if [ "${E2E_CHECK_SKIP_BUSY:-0}" != 1 ]; then
  t=$(date +%s)
  if swap_workflows "$WORK/busy" docker/workflows/*.json && node "$HERE/check-busy.mjs"; then
    log "busy n8n: the late run is UNJUDGED with its run's id, nothing FAILs ($(($(date +%s) - t)) s)"
  else
    log "busy n8n: FAILED (reports/e2e-check-busy.json)"; failed=1
  fi
fi
exit "$failed"
