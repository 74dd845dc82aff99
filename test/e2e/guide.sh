#!/usr/bin/env bash
# The trainee guide's workflow on the pinned n8n (no Docker), through test/e2e/run.sh, as a trainee who
# follows docs/trainee-guide.md checks it:
#   1. the whole guide (docker/workflows/guide/suspicious-login-response.json and -rollback.json) passes
#      `--stage all`, the Webhook's execution data read through n8n's public API (a key made for the run);
#   2. the response workflow as it stands after each stage (docker/workflows/guide/stage-NN-<stage>.json)
#      passes that stage's check on its own (--only; everything up to it is the whole guide's, checked by
#      1). Rollback's workflows are the whole guide's, checked by 1.
# The exports are app/workflow/guide's (make test fails when they are stale). Each run gets its own n8n,
# mock API and temp folder (run.sh cleans up); reports in reports/e2e-guide-<stage>.json.
#   bash test/e2e/guide.sh [all|STAGE ...]      default: all, then every stage from webhook to connector-failure
# Env: APPROVAL_TIMEOUT_SECONDS (default here 20), and run.sh's. Exit 0 when every run passed; needs
# `npm run build` first (dist/app/check/cli.js, dist/app/api/main.js).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$ROOT"
export APPROVAL_TIMEOUT_SECONDS="${APPROVAL_TIMEOUT_SECONDS:-20}"
log() { echo "[e2e-guide] $(date -u +%H:%M:%S) $*" >&2; }
[ "${LAB_TRACE:-0}" = 1 ] && { export PS4='+ guide.sh:${LINENO}: '; set -x; }

GUIDE=docker/workflows/guide
STAGES=(webhook validate enrich case-lookup decide approve block record idempotency connector-failure)
[ -f dist/app/check/cli.js ] || { log "dist/app/check/cli.js missing: run 'npm run build' first"; exit 2; }
mkdir -p reports

# The export file of the response workflow after STAGE: stage-NN-STAGE.json.
stage_file() {
  local i
  for i in "${!STAGES[@]}"; do
    if [ "${STAGES[$i]}" = "$1" ]; then printf '%s/stage-%02d-%s.json\n' "$GUIDE" $((i + 1)) "$1"; return 0; fi
  done
  return 1
}

# One run: import FILES into a fresh n8n, check STAGE there; returns the checker's exit. A stage's partial
# is checked at its stage on its own (--only): the stages before it are the whole guide's, which `all`
# checks, and make test checks every partial at everything up to its stage offline.
run() {
  local stage=$1 files=$2 only=""
  [ "$stage" = all ] || only=--only
  E2E_WORKFLOWS="$files" E2E_API_KEY=1 \
    E2E_RUNNER="node dist/app/check/cli.js --stage $stage $only --target n8n --api \"\$API_URL\" --n8n \"\$N8N_URL\" --report reports/e2e-guide-$stage.json" \
    bash "$HERE/run.sh"
}

wanted=("$@")
[ ${#wanted[@]} -gt 0 ] || wanted=(all "${STAGES[@]}")
failed=()
for stage in "${wanted[@]}"; do
  if [ "$stage" = all ] || [ "$stage" = rollback ]; then
    files="$GUIDE/suspicious-login-response.json $GUIDE/suspicious-login-rollback.json"
  elif ! files=$(stage_file "$stage"); then
    log "no stage $stage: one of all ${STAGES[*]} rollback"; exit 2
  fi
  t=$(date +%s)
  if run "$stage" "$files"; then
    log "$stage: the guide's workflow passed in $(($(date +%s) - t)) s"
  else
    log "$stage: FAILED (reports/e2e-guide-$stage.json)"; failed+=("$stage")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then log "failed: ${failed[*]}"; exit 1; fi
log "every run passed: ${wanted[*]}"
