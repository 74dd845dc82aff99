#!/usr/bin/env bash
# The trainee guide's workflow on the pinned n8n (no Docker), as a trainee who follows
# docs/trainee-guide.md checks it, on ONE n8n and one mock API started for the whole suite by
# test/e2e/run.sh (this script, run again inside it, is its runner):
#   1. the response workflow as it stands after each stage (docker/workflows/stages/stage-NN-<stage>.json)
#      passes that stage's check on its own (--only; everything up to it is the whole guide's, checked by
#      2). Rollback's workflows are the whole guide's, checked by 2.
#   2. then the whole guide (docker/workflows/suspicious-login-response.json and -rollback.json, what
#      `make solution` publishes) passes `--stage all`, the Webhook's execution data read through n8n's public API, on the n8n that
#      ran every partial before it (their runs stay in its database).
# Between runs the next run's workflows replace the former's through n8n's public API (swap_workflows in
# test/e2e/workflows.sh): every unfinished run stopped (none may be left), the workflows of the same name
# updated in place and published, any other unpublished (a partial has no rollback workflow).
# The exports are app/workflow/guide's (make test fails when they are stale). Reports in
# reports/e2e-guide-<stage>.json.
#   bash test/e2e/guide.sh [all|STAGE ...]      default: every stage from webhook to connector-failure, then all
# Env: APPROVAL_TIMEOUT_SECONDS (default here 20), and run.sh's. Exit 0 when every run passed; needs
# `npm run build` first (dist/app/check/cli.js, dist/app/api/main.js, dist/app/n8n/cli.js).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$ROOT"
export APPROVAL_TIMEOUT_SECONDS="${APPROVAL_TIMEOUT_SECONDS:-20}"
log() { echo "[e2e-guide] $(date -u +%H:%M:%S) $*" >&2; }
[ "${LAB_TRACE:-0}" = 1 ] && { export PS4='+ guide.sh:${LINENO}: '; set -x; }

WHOLE=docker/workflows
STAGE_DIR=docker/workflows/stages
STAGES=(webhook validate enrich case-lookup decide approve block record idempotency connector-failure)
[ -f dist/app/check/cli.js ] || { log "dist/app/check/cli.js missing: run 'npm run build' first"; exit 2; }

# The export files of a run: the whole guide for all (and rollback), else the response workflow after
# STAGE, stage-NN-STAGE.json.
stage_files() {
  local i
  if [ "$1" = all ] || [ "$1" = rollback ]; then
    echo "$WHOLE/suspicious-login-response.json $WHOLE/suspicious-login-rollback.json"; return 0
  fi
  for i in "${!STAGES[@]}"; do
    if [ "${STAGES[$i]}" = "$1" ]; then printf '%s/stage-%02d-%s.json\n' "$STAGE_DIR" $((i + 1)) "$1"; return 0; fi
  done
  return 1
}

wanted=("$@")
[ ${#wanted[@]} -gt 0 ] || wanted=("${STAGES[@]}" all)
for stage in "${wanted[@]}"; do
  stage_files "$stage" >/dev/null || { log "no stage $stage: one of all ${STAGES[*]} rollback"; exit 2; }
done

# --- as make starts it: one n8n and one mock API for the suite, this script run inside -----------------
if [ "${E2E_GUIDE_ON_N8N:-0}" != 1 ]; then
  t=$(date +%s)
  rc=0
  E2E_API_KEY=lab E2E_RUNNER="E2E_GUIDE_ON_N8N=1 bash '$HERE/guide.sh' ${wanted[*]}" bash "$HERE/run.sh" || rc=$?
  log "n8n started 1 time for the suite; $(($(date +%s) - t)) s in all, exit $rc"
  exit "$rc"
fi

# --- inside: API_URL, N8N_URL, N8N_API_KEY (the lab's scopes) -------------------------------------------
SYSTEM_NODE="$(command -v node)"
# shellcheck source=workflows.sh
. "$HERE/workflows.sh"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/soar-e2e-guide.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
mkdir -p reports

# One run: swap STAGE's files in, check STAGE there; returns the checker's exit (2: the swap failed). A
# stage's partial is checked at its stage on its own (--only): the stages before it are the whole guide's,
# which `all` checks, and make test checks every partial at everything up to its stage offline.
run() {
  local stage=$1 only="" files
  [ "$stage" = all ] || only=--only
  read -r -a files <<<"$(stage_files "$stage")"
  swap_workflows "$WORK/$stage" "${files[@]}" || return 2
  # shellcheck disable=SC2086 # $only is one word or none
  node dist/app/check/cli.js --stage "$stage" $only --target n8n --api "$API_URL" --n8n "$N8N_URL" \
    --report "reports/e2e-guide-$stage.json"
}

failed=()
for stage in "${wanted[@]}"; do
  t=$(date +%s)
  if run "$stage"; then
    log "$stage: the guide's workflow passed in $(($(date +%s) - t)) s"
  else
    log "$stage: FAILED (reports/e2e-guide-$stage.json)"; failed+=("$stage")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then log "failed: ${failed[*]}"; exit 1; fi
log "every run passed: ${wanted[*]}"
