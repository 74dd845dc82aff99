# shellcheck shell=bash
# The test's parts side by side (test/lab/run.sh): they spend most of their time waiting (labs starting,
# n8n's approval limit and its once-a-minute check of due waits), so a part beside the exercise runs in the
# background: its lines into a log of its own (its step lines also shown as they come, prefixed with its
# name), its counts and figures handed back when it ends; parts_join waits for them, prints each log whole
# and adds its counts to the test's. (Every part creates its named labs under lib.sh's lab_create_lock.)
#   needs: WORK, test/lib/engine.sh (PASSED, FAILED, LOG_TAG, fail) and lib.sh (kill_tree) sourced

# The parts started in the background, "NAME:PID" each.
PART_PIDS=()

# part_in_background NAME FIGURES FUNCTION...: the functions in order, in the background; FIGURES (names
# of variables, space-separated) handed back to this shell with the counts when the part ends. A part
# that ends early (a step failed under set -e, or its first step could not start the part) counts a
# failure.
part_in_background() {
  rm -f "$WORK/part-$1.end"
  part_body "$@" &
  PART_PIDS+=("$1:$!")
}
# part_body NAME FIGURES STEP... (in its own subshell): the part's own counts, log and ending.
part_body() {
  PART_NAME=$1
  PART_FIGURES=$2
  shift 2
  exec 3>&1 >"$WORK/part-$PART_NAME.log" 2>&1
  PASSED=0
  FAILED=0
  # Step lines also to the test's output, so a reader sees where the part is.
  # shellcheck disable=SC2317 # called by the part's steps
  log() {
    printf '[%s %5ss] %s\n' "$LOG_TAG" "$SECONDS" "$*"
    printf '[%s %5ss] %s | %s\n' "$LOG_TAG" "$SECONDS" "$PART_NAME" "$*" >&3
  }
  # The closing line is the whole test's: a part that cannot go on just ends.
  # shellcheck disable=SC2317 # called by the part's steps
  summary() { [ "$FAILED" = 0 ]; }
  trap 'part_ended $?' EXIT
  timed "$@"
}

# timed STEP...: each step in turn, its seconds added to $WORK/step-seconds (the closing figures).
timed() {
  local step started
  for step in "$@"; do
    started=$SECONDS
    "$step"
    echo "$step $((SECONDS - started))" >>"$WORK/step-seconds"
  done
}

# part_ended RC (the part's own exit, in its subshell): what it left in the background stopped, its
# counts and figures into $WORK/part-NAME.end.
part_ended() {
  local rc=$1 figure pid
  trap - EXIT
  set +e
  [ "$rc" = 0 ] || fail "the $PART_NAME part runs to its end" "it stopped early (exit $rc)"
  for pid in $(jobs -p); do kill_tree "$pid"; done
  {
    echo "PART_PASSED=$PASSED PART_FAILED=$FAILED"
    for figure in $PART_FIGURES; do [ -z "${!figure:-}" ] || printf '%s=%q\n' "$figure" "${!figure}"; done
  } >"$WORK/part-$PART_NAME.end"
  exit "$rc"
}

# parts_join: waits for every background part, prints its log, adds its counts and takes its figures.
parts_join() {
  local entry name PART_PASSED PART_FAILED
  for entry in ${PART_PIDS[@]+"${PART_PIDS[@]}"}; do
    name=${entry%%:*}
    wait "${entry#*:}" || true
    log "the $name part, beside the exercise: its lines"
    sed 's/^/  | /' "$WORK/part-$name.log"
    if [ -f "$WORK/part-$name.end" ]; then
      # shellcheck disable=SC1090 # the part's own counts and figures, written by part_ended
      . "$WORK/part-$name.end"
      PASSED=$((PASSED + PART_PASSED))
      FAILED=$((FAILED + PART_FAILED))
    else
      fail "the $name part hands back its counts" "it left none (killed?)"
    fi
  done
  PART_PIDS=()
}

# parts_stop: every background part and what it started, ended (run.sh's clean-up).
parts_stop() {
  local entry
  for entry in ${PART_PIDS[@]+"${PART_PIDS[@]}"}; do kill_tree "${entry#*:}"; done
  PART_PIDS=()
}

# part_gate_wait NAME SECONDS: waits until the part NAME opens its gate ($WORK/gate-NAME, made by one of its
# steps) or ends; goes on anyway after SECONDS.
part_gate_wait() {
  local deadline=$((SECONDS + $2))
  until [ -e "$WORK/gate-$1" ] || [ -e "$WORK/part-$1.end" ] || [ $SECONDS -ge "$deadline" ]; do sleep 2; done
}
