# shellcheck shell=bash
# The class of make test-class-scale as it really checks: every trainee checks a stage from the console every
# 2-4 minutes (think times drawn from SCALE_SEED, one sequence a lab), half the time with the stages before
# it, half on its own, for SCALE_MINUTES; the last lab holds a broken variant and checks the stage it
# breaks, which must FAIL with its hint; lab RUNAWAY_LAB's runaway Code node is started every minute. Then the lone figure: labs 2..N stopped, lab 1 runs each request
# the class made, once, alone on the host. Also the verdict of one check's lines, shared with the burst, and
# the burst's checks (burst_verdicts; test/lab/burst-verdicts.test.ts feeds them broken bursts).
#   needs: lib.sh (console_check_in, make_lab), WORK, N, names(), check(), log(), oom_killed(), median()

# verdict EXPECT FILE: what a check's printed lines (a make check log, or a console run's view) say, against
# what the lab's workflow deserves (EXPECT: pass, or fail for the broken lab): right, unjudged (the host, not
# the workflow: allowed), wrong (a FAIL for a correct workflow, a PASS for the broken one) or error (no
# verdict at all: the check did not run to its end).
verdict() {
  local fails unjudged hints ended
  fails=$(grep -Ec '(^|")FAIL {6}[a-z]' "$2" || true)
  unjudged=$(grep -Ec '(^|")UNJUDGED  [a-z]' "$2" || true)
  hints=$(grep -Ec 'hint: ' "$2" || true)
  ended=$(grep -Ec '(^|")(PASS|FAIL)  stage ' "$2" || true)
  if [ "$1" = fail ]; then
    if [ "$fails" -gt 0 ] && [ "$hints" -gt 0 ]; then echo right; elif [ "$unjudged" -gt 0 ]; then echo unjudged; elif [ "$ended" -gt 0 ]; then echo wrong; else echo error; fi
  elif [ "$fails" -gt 0 ]; then
    echo wrong
  elif [ "$ended" -eq 0 ]; then
    echo error
  elif [ "$unjudged" -gt 0 ]; then
    echo unjudged
  else
    echo right
  fi
}

# burst_verdicts K STRICT TIMES LONE OOM: the checks of a burst of K labs checking at once (check() each),
# from TIMES (a line a check: "lab seconds exit verdict"), LONE (the lone check's line, the same form) and
# OOM (containers killed for memory): K checks ran, the lone one to a verdict, none wrong, each to a
# verdict, nothing killed; STRICT ("strict") also every check passing (none unjudged), the lone one right
# and the slowest within 2x the lone. A burst that ran fewer checks than labs, or none, fails.
burst_verdicts() {
  local k=$1 strict=$2 times=$3 oom=$5 lone lone_verdict ran wrong errors unjudged slowest
  read -r _ lone _ lone_verdict <<<"$4"
  ran=$(grep -c . "$times" || true)
  wrong=$(awk '$4 == "wrong" {print $1}' "$times" | sort | paste -sd ' ')
  errors=$(awk '$4 == "error" {print $1}' "$times" | sort | paste -sd ' ')
  unjudged=$(awk '$4 == "unjudged"' "$times" | wc -l)
  slowest=$(awk '{print $2}' "$times" | sort -n | tail -n 1)
  check "burst of $k: $k checks ran ($ran recorded)" test "$ran" = "$k"
  check "burst of $k: the lone check ran to a verdict (${lone_verdict:-none})" one_of "${lone_verdict:-}" right unjudged
  check "burst of $k: no wrong verdict${wrong:+ (wrong: $wrong)}" test -z "$wrong"
  check "burst of $k: every check ran to a verdict${errors:+ (none from: $errors)}" test -z "$errors"
  check "burst of $k: no container was killed for memory ($oom)" test "$oom" = 0
  if [ "$strict" = strict ]; then
    check "burst of $k: every check passes ($unjudged unjudged; the lone one ${lone_verdict:-none})" \
      one_of "$unjudged ${lone_verdict:-}" "0 right"
    check "burst of $k: the slowest check (${slowest:-none} s) is within 2x the lone one (${lone:-none} s)" \
      within_twice "${slowest:-}" "${lone:-}"
  fi
}
one_of() { # one_of VALUE CHOICE...: VALUE is one of the choices
  local value=$1 choice
  shift
  for choice; do [ "$value" = "$choice" ] && return 0; done
  return 1
}
within_twice() { [[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ ]] && [ "$1" -le $((2 * $2)) ]; }

# shape_trainee LAB INDEX EXPECT: one trainee's checks until SCALE_MINUTES are up; a line each into
# $WORK/shape: "lab stage only started_at seconds exit verdict".
shape_trainee() {
  local lab=$1 expect=$3 stage only started rc view n=0 stages think end=$((SHAPE_START + SCALE_MINUTES * 60))
  read -r -a stages <<<"$SHAPE_STAGES"
  RANDOM=$((SCALE_SEED * 100 + $2))
  think=$((RANDOM % 120))
  # A check only starts before the end; none waits past it.
  while [ $((SECONDS + think)) -lt "$end" ]; do
    sleep "$think"
    if [ "$expect" = fail ]; then
      stage=$BROKEN_STAGE only=true
    else
      stage=${stages[RANDOM % ${#stages[@]}]}
      only=false
      [ $((RANDOM % 2)) = 1 ] && only=true
    fi
    n=$((n + 1))
    view=$WORK/shape-$lab-$n.json
    started=$SECONDS
    rc=$(console_check_in "$lab" "$stage" "$only" "$view" 2>&1) || rc="not started: $rc"
    echo "$lab $stage $only $((started - SHAPE_START)) $((SECONDS - started)) ${rc// /_} $(verdict "$expect" "$view")" >>"$WORK/shape"
    think=$((120 + RANDOM % 121))
  done
}

# p95 FILE COLUMN: the 95th percentile (nearest rank) of a column.
p95() { awk -v c="$2" '{print $c}' "$1" | sort -n | awk '{ v[NR] = $1 } END { i = int(NR * 0.95 + 0.999); if (i < 1) i = 1; print v[i] }'; }

# class_shape: the class as it checks, then the lone figures; the checks and figures into the report.
class_shape() {
  local lab i=0 pids=() expect oom wrong errors unjudged checks lone_p95 class_p95 stage only t
  log "class shape: $N trainees check from their consoles every 2-4 minutes for $SCALE_MINUTES minutes (seed $SCALE_SEED; lab $BROKEN_LAB holds $BROKEN_VARIANT${RUNAWAY_LAB:+, a Code node runs away in lab $RUNAWAY_LAB})"
  : >"$WORK/shape"
  : >"$WORK/shape-host"
  SHAPE_START=$SECONDS
  (while :; do echo "$(host_free_mib) $(load1)" >>"$WORK/shape-host"; sleep 5; done) &
  SAMPLER_PID=$!
  RUNAWAY_PID=""
  if [ -n "$RUNAWAY_LAB" ]; then
    (while :; do
      in_ns curl -s -o /dev/null -X POST "http://127.0.0.1:$(env_of "labs/$RUNAWAY_LAB.env" LAB_EDITOR_PORT)/webhook/runaway-loop" \
        -H 'content-type: application/json' -d '{}'
      sleep 60
    done) &
    RUNAWAY_PID=$!
  fi
  for lab in $(names); do
    i=$((i + 1))
    expect=pass
    [ "$lab" = "$BROKEN_LAB" ] && expect=fail
    shape_trainee "$lab" "$i" "$expect" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || true; done
  [ -z "$RUNAWAY_PID" ] || kill "$RUNAWAY_PID" 2>/dev/null || true
  kill "$SAMPLER_PID" 2>/dev/null || true
  wait "$SAMPLER_PID" 2>/dev/null || true
  SAMPLER_PID=""
  oom=$(oom_killed)

  log "lone figures: labs 2..$N stopped, lab 1 runs each request of the class once"
  for lab in $(names | tail -n +2); do make_lab stop LAB="$lab" >/dev/null 2>&1 || fail "make stop LAB=$lab"; done
  sleep 30
  : >"$WORK/lone"
  awk -v b="$BROKEN_LAB" -v r="$RUNAWAY_LAB" '$1 != b && $1 != r { print $2, $3 }' "$WORK/shape" | sort -u | while read -r stage only; do
    t=$SECONDS
    console_check_in "$(names | head -n 1)" "$stage" "$only" "$WORK/lone-view.json" >/dev/null || true
    echo "$stage $only $((SECONDS - t)) $(verdict pass "$WORK/lone-view.json")" >>"$WORK/lone"
  done
  # Each check of a correct lab beside the lone time of the same request: "class_seconds lone_seconds". The
  # runaway lab's own checks wait on its own stuck task runner: theirs, reported apart, never compared.
  awk 'NR == FNR { lone[$1 " " $2] = $3; next } $1 != b && $1 != r { print $5, lone[$2 " " $3] }' b="$BROKEN_LAB" \
    r="$RUNAWAY_LAB" "$WORK/lone" "$WORK/shape" >"$WORK/paired"
  checks=$(wc -l <"$WORK/shape")
  wrong=$(awk '$7 == "wrong"' "$WORK/shape" | wc -l)
  errors=$(awk '$7 == "error"' "$WORK/shape" | wc -l)
  unjudged=$(awk '$7 == "unjudged"' "$WORK/shape" | wc -l)
  class_p95=$(p95 "$WORK/paired" 1)
  lone_p95=$(p95 "$WORK/paired" 2)
  class_p95=${class_p95:-0} lone_p95=${lone_p95:-0}
  {
    echo "class shape, $N labs, $SCALE_MINUTES minutes (seed $SCALE_SEED${RUNAWAY_LAB:+; lab $RUNAWAY_LAB runs away throughout}): $checks checks from the consoles; verdicts right $(awk '$7 == "right"' "$WORK/shape" | wc -l), unjudged $unjudged, wrong $wrong, no verdict $errors"
    echo "  the broken lab ($BROKEN_LAB, $BROKEN_VARIANT, checking $BROKEN_STAGE): $(awk -v b="$BROKEN_LAB" '$1 == b {print $7}' "$WORK/shape" | sort | uniq -c | paste -sd ' ')"
    [ -z "$RUNAWAY_LAB" ] || echo "  the runaway lab ($RUNAWAY_LAB, its own checks): $(awk -v r="$RUNAWAY_LAB" '$1 == r {printf "%s %s s %s; ", $2, $5, $7}' "$WORK/shape")"
    echo "  check time of the other correct labs (s): p50 $(median "$WORK/paired" 1), p95 $class_p95, max $(sort -n "$WORK/paired" | tail -n 1 | cut -d ' ' -f 1); the same requests alone: p50 $(median "$WORK/paired" 2), p95 $lone_p95"
    echo "  host meanwhile: lowest free $(awk '{print $1}' "$WORK/shape-host" | sort -n | head -n 1) MiB, highest load $(awk '{print $2}' "$WORK/shape-host" | sort -n | tail -n 1), median load $(median "$WORK/shape-host" 2); containers killed for memory: $oom"
    echo "  every check (lab stage only at_s seconds exit verdict):"
    sort -k4,4n "$WORK/shape" | sed 's/^/    /'
    echo "  the lone requests (stage only seconds verdict):"
    sed 's/^/    /' "$WORK/lone"
  } | tee -a "$WORK/report"
  check "class shape: checks were made (${checks})" test "$checks" -ge "$N"
  check "class shape: no wrong verdict ($wrong wrong; the broken lab's FAILs with their hint)" test "$wrong" = 0
  check "class shape: every check ran to a verdict ($errors without)" test "$errors" = 0
  check "class shape: the 95th-percentile check time (${class_p95} s) is within 2x the same requests alone (${lone_p95} s)" \
    test "$class_p95" -le $((2 * lone_p95))
  check "class shape: no container was killed for memory ($oom)" test "$oom" = 0
  check "make class-start: the stopped labs back" make_lab class-start ROSTER="$ROSTER_FILE"
}
