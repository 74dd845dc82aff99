#!/usr/bin/env bash
# make e2e-all: make e2e, make e2e-guide and make e2e-check, in that order, on ONE n8n and one mock API
# started once by test/e2e/run.sh (this script, run again inside it, is its runner), not once a suite:
#   e2e        the acceptance runner on the workflows run.sh imported at its start (docker/workflows/*.json),
#              as make e2e runs it; first, because it is the one suite that swaps nothing in;
#   e2e-guide  test/e2e/guide.sh's runs (E2E_GUIDE_ON_N8N=1), as make e2e-guide runs them;
#   e2e-check  test/e2e/check.sh's runs (E2E_CHECK_ON_N8N=1), as make e2e-check runs them; last, because its
#              busy-host check pauses n8n (SIGSTOP) on purpose.
# Nothing of a suite can change the next one's verdicts: each of guide.sh's and check.sh's runs starts by
# swapping its workflows in (swap_workflows in test/e2e/workflows.sh), which stops every unfinished run of
# the former workflows (none may be left) and unpublishes any other workflow; every scenario of the
# acceptance runner and the checker resets the mock API first; the checker finds a stimulus's run by its
# own random event_id and its start time, so a former suite's executions in n8n's database are never
# taken for its own (check.sh proves both on the variants before the reference).
# Each suite runs to its end even when one before it failed; one line a suite gives its result and wall
# time, then all of them together. Exit 0 when every suite passed, else 1 (2: n8n did not start).
# Env: E2E_ALL_SUITES="e2e e2e-guide e2e-check" (a subset; run in that order), each suite's own knobs
# (E2E_CHECK_*, TWINS_*, APPROVAL_TIMEOUT_SECONDS), run.sh's (E2E_KEEP, LAB_CACHE); CI_SUITE_TIMES=FILE:
# each suite's "NAME SECONDS EXIT" line is appended to FILE too, and last "start+stop SECONDS 0", the rest
# of the wall time (FILE empty at the start: .ci/run empties it before each suite and prints the lines).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$ROOT"
export APPROVAL_TIMEOUT_SECONDS="${APPROVAL_TIMEOUT_SECONDS:-20}"
log() { echo "[e2e-all] $(date -u +%H:%M:%S) $*" >&2; }
[ "${LAB_TRACE:-0}" = 1 ] && { export PS4='+ all.sh:${LINENO}: '; set -x; }

# The suites asked for, always in this order (e2e needs the workflows run.sh imported, untouched).
ALL=(e2e e2e-guide e2e-check)
read -r -a WANTED <<<"${E2E_ALL_SUITES:-${ALL[*]}}"
for suite in "${WANTED[@]}"; do
  [[ " ${ALL[*]} " == *" $suite "* ]] || { log "no suite $suite: E2E_ALL_SUITES takes ${ALL[*]}"; exit 2; }
done
SUITES=()
for suite in "${ALL[@]}"; do [[ " ${WANTED[*]} " != *" $suite "* ]] || SUITES+=("$suite"); done

# --- as make starts it: one n8n and one mock API for every suite, this script run inside ---------------
if [ "${E2E_ALL_ON_N8N:-0}" != 1 ]; then
  t=$(date +%s)
  rc=0
  E2E_API_KEY=lab E2E_RUNNER="E2E_ALL_ON_N8N=1 bash '$HERE/all.sh'" bash "$HERE/run.sh" || rc=$?
  took=$(($(date +%s) - t))
  log "n8n started 1 time for ${#SUITES[@]} suite(s); $took s in all, exit $rc"
  # The rest of the wall time: the mock API's and n8n's start (imports included) and stop.
  if [ -n "${CI_SUITE_TIMES:-}" ]; then
    inner=$(awk '{ s += $2 } END { print s + 0 }' "$CI_SUITE_TIMES")
    echo "start+stop $((took - inner)) 0" >>"$CI_SUITE_TIMES"
  fi
  exit "$rc"
fi

# --- inside: API_URL, N8N_URL, N8N_API_KEY (the lab's scopes) -------------------------------------------
# One suite, as its own make target runs it inside run.sh.
suite() {
  case $1 in
    e2e) node dist/app/acceptance/cli.js --target n8n --api "$API_URL" --n8n "$N8N_URL" \
      --report "${E2E_REPORT:-reports/e2e-n8n.json}" ;;
    e2e-guide) E2E_GUIDE_ON_N8N=1 bash "$HERE/guide.sh" ;;
    e2e-check) E2E_CHECK_ON_N8N=1 bash "$HERE/check.sh" ;;
  esac
}

mkdir -p reports
results=()
failed=0
for name in "${SUITES[@]}"; do
  log "$name ..."
  t=$(date +%s)
  rc=0
  suite "$name" || rc=$?
  took=$(($(date +%s) - t))
  [ "$rc" = 0 ] || failed=1
  results+=("$(printf '%-10s %5d s  %s' "$name" "$took" "$([ "$rc" = 0 ] && echo passed || echo "FAILED (exit $rc)")")")
  log "$name: $([ "$rc" = 0 ] && echo passed || echo "FAILED (exit $rc)") in $took s"
  if [ -n "${CI_SUITE_TIMES:-}" ]; then echo "$name $took $rc" >>"$CI_SUITE_TIMES"; fi
done
log "every suite on one n8n:"
for line in "${results[@]}"; do log "  $line"; done
exit "$failed"
