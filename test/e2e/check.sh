#!/usr/bin/env bash
# make e2e-check: the stage checker on the pinned n8n (no Docker), through test/e2e/run.sh:
#   1. the reference workflows pass every stage, with the Webhook's execution data read through n8n's
#      public API (a key made for the run);
#   2. each broken variant that exists as n8n JSON (app/check/n8n-variants.ts) fails the stage
#      it breaks (checked with --only, so each variant costs one stage, not all of them);
#   3. a busy host (check-busy.mjs): n8n paused with a run in flight past the phase limit makes that
#      run's lines UNJUDGED ("n8n did not run it within N s"), never FAIL.
# Each run gets its own n8n, mock API and temp folder (test/e2e/run.sh cleans up). Exit 0 when all of it holds.
# Env knobs: E2E_CHECK_VARIANTS="a b" (default: every n8n variant), E2E_CHECK_SKIP_REFERENCE=1,
# E2E_CHECK_SKIP_BUSY=1.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$ROOT"
export APPROVAL_TIMEOUT_SECONDS="${APPROVAL_TIMEOUT_SECONDS:-20}"
log() { echo "[e2e-check] $(date -u +%H:%M:%S) $*" >&2; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/soar-e2e-check.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
mkdir -p reports

# One run: write the variant's JSON, start n8n with it, run the checker; prints nothing, returns its exit.
# A variant's run is meant to fail: its n8n folder and logs are not kept for that (the report is).
run() {
  local name=$1 stage=$2 only=$3 report=$4
  npx tsx app/check/write-variant-cli.ts "$name" "$WORK/$name" >/dev/null
  E2E_WORKFLOWS="$WORK/$name/suspicious-login-response.json $WORK/$name/suspicious-login-rollback.json" \
    E2E_API_KEY=1 E2E_KEEP_ON_FAILURE=$([ "$name" = reference ] && echo 1 || echo 0) \
    E2E_RUNNER="node dist/app/check/cli.js --stage $stage $only --target n8n --api \"\$API_URL\" --n8n \"\$N8N_URL\" --report $report" \
    bash "$HERE/run.sh"
}

failed=0
if [ "${E2E_CHECK_SKIP_REFERENCE:-0}" != 1 ]; then
  t=$(date +%s)
  if run reference all "" reports/e2e-check-reference.json; then
    log "reference: every stage passed in $(($(date +%s) - t)) s"
  else
    log "reference: FAILED (reports/e2e-check-reference.json)"; failed=1
  fi
fi

variants="${E2E_CHECK_VARIANTS:-$(node --import tsx -e 'import("./app/check/n8n-variants.ts").then((m) => console.log(Object.keys(m.N8N_VARIANTS).join(" ")))')}"
for name in $variants; do
  stage="$(node --import tsx -e 'import("./app/check/variants.ts").then((m) => console.log(m.REFERENCE_VARIANTS[process.argv[1]].breaks))' "$name")"
  report="reports/e2e-check-$name.json"
  t=$(date +%s)
  set +e
  run "$name" "$stage" --only "$report"
  rc=$?
  set -e
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
# A busy host: n8n paused (SIGSTOP) with a run in flight, past the phase limit: UNJUDGED, never FAIL.
if [ "${E2E_CHECK_SKIP_BUSY:-0}" != 1 ]; then
  t=$(date +%s)
  if E2E_API_KEY=1 E2E_KEEP_ON_FAILURE=0 E2E_RUNNER="node $HERE/check-busy.mjs" bash "$HERE/run.sh"; then
    log "busy n8n: the late run is UNJUDGED with its run's id, nothing FAILs ($(($(date +%s) - t)) s)"
  else
    log "busy n8n: FAILED (reports/e2e-check-busy.json)"; failed=1
  fi
fi
exit "$failed"
