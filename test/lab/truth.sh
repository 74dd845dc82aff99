# shellcheck shell=bash
# The tutor claims only what it saw, on the real lab, in Chromium (part of test/lab/run.sh's exercise, after
# the tutor; LAB_TEST_PARTS=truth on a lab of its own), with the trainee's whole workflow (the guide's)
# published and each card read as the page draws it (test/lab/tutor-panel.ts):
#   1. a low-confidence test alert: as the exercise asks; a positive one left waiting, then Reset pressed on
#      the page: its card says it was stopped by Reset, no stage "not met", no hint, and it is no try; another
#      left waiting, then `make reset` on the host: the same;
#   2. every card as a page opened now draws it; `make stop` / `make start` and a page opened again: every
#      earlier card word for word, runs.json not written; the console's container restarted: likewise;
#   3. a positive alert left waiting, LAB_TRUTH_BETWEEN (25) low-confidence alerts each to its end, then
#      Approve: its card ends as the exercise asks;
#   4. a run of 5 MiB (an alert with a 5 MiB field, POSTed to the webhook): the console stays up, its memory
#      (docker stats, sampled) under its limit, the run on the page, its alert cut to what a page holds.
#   needs: tutor.sh (tutor_panel, said_panel, holds, runs_file, runs_stamp), tutor-figures.sh (sampler_*),
#   exercise.sh (EDITOR, LAB_PROJECT, trainee), lib.sh; sets TRUTH_SECONDS and TRUTH_FIGURES

TRUTH_BETWEEN=${LAB_TRUTH_BETWEEN:-25}

# cards_now OUT: every card of the panel as a page opened now draws it, once it has caught up.
cards_now() {
  : >"$WORK/truth-now"
  tutor_panel watch "$1" --until "$WORK/truth-now" >/dev/null
}
# same_cards BEFORE AFTER: every card of BEFORE is in AFTER word for word (verdict, status, summary, alert,
# stages, what was received, the unmet expectation with its hint, the link); prints how many.
same_cards() {
  node -e '
    const [a, b] = process.argv.slice(1).map((f) => JSON.parse(require("fs").readFileSync(f, "utf8")).cards ?? []);
    const key = (c) => JSON.stringify([c.execution, c.verdict, c.status, c.summary, c.kind, c.alert, c.stages, c.received, c.unmet, c.link]);
    const after = new Set(b.map(key));
    const lost = a.filter((c) => !after.has(key(c)));
    if (a.length === 0) { console.log("no cards before"); process.exit(1); }
    if (lost.length > 0) {
      const now = b.find((c) => c.execution === lost[0].execution);
      console.log(lost.length + " of " + a.length + " cards differ; run " + lost[0].execution + " was \"" + lost[0].summary + "\", now " + (now ? "\"" + now.summary + "\"" : "gone"));
      process.exit(1);
    }
    console.log(a.length + " cards the same");' "$1" "$2"
}
# stopped_by_reset FILE: the card of FILE (r.card) says its run was stopped by Reset, claims nothing else.
stopped_by_reset() {
  holds "$1" "r.card.status === 'canceled' && r.card.verdict === 'stopped' && /^stopped by Reset/.test(r.card.summary) && r.card.unmet === null && !/not met/.test(r.card.summary)" \
    "JSON.stringify({status: r.card.status, verdict: r.card.verdict, summary: r.card.summary, unmet: r.card.unmet})"
}

truth_reset() {
  local out=$WORK/truth-low.json tries exec
  check "make reset: a clean slate" make_lab reset
  check "in Chromium, a low-confidence test alert: as the exercise asks" tutor_panel alert "$out" --kind low_confidence
  check "... its card: $(json_get "$out" 'r.card && r.card.summary')" holds "$out" "r.card.verdict === 'as-asked'"
  runs_file "$WORK/truth-runs-0.json" || true
  tries=$(json_get "$WORK/truth-runs-0.json" 'JSON.stringify(r.tries)' 2>/dev/null || echo '?')
  out=$WORK/truth-reset.json
  check "a positive test alert left waiting, then Reset pressed on the page (and confirmed)" tutor_panel reset "$out" --kind positive
  said_panel
  [ -s "$out" ] || echo '{}' >"$out"
  check "... it waited first ($(json_get "$out" 'r.waiting && r.waiting.verdict'))" holds "$out" "r.waiting.verdict === 'waiting'"
  check "... then its card: \"$(json_get "$out" 'r.card && r.card.summary')\"" stopped_by_reset "$out"
  exec=$(json_get "$out" 'r.card ? r.card.execution : ""' || true)
  check "... runs.json: stopped, no unmet stage, the tries as before ($tries)" \
    runs_has "${exec:-none}" "x.verdict === 'stopped' && x.unmet_stage === null && JSON.stringify(r.tries) === '$tries'"
  out=$WORK/truth-host-reset.json
  check "a positive test alert left waiting" tutor_panel waiting "$out" --kind positive
  exec=$(json_get "$out" 'r.waiting ? r.waiting.execution : ""' || true)
  check "make reset on the host" make_lab reset
  cards_now "$WORK/truth-after-host-reset.json"
  check "... its card ($exec): \"$(json_get "$WORK/truth-after-host-reset.json" "(r.cards.find((c) => c.execution === '$exec') || {}).summary")\"" \
    holds "$WORK/truth-after-host-reset.json" "((c) => c && c.verdict === 'stopped' && /^stopped by Reset/.test(c.summary) && c.unmet === null)(r.cards.find((c) => c.execution === '$exec'))"
}

truth_restarts() {
  local stamp console
  cards_now "$WORK/truth-before.json"
  stamp=$(runs_stamp)
  check "make stop" make_lab stop
  check "make start" make_lab start
  cards_now "$WORK/truth-after-start.json"
  check "after make stop / make start, a page opened again: $(same_cards "$WORK/truth-before.json" "$WORK/truth-after-start.json")" \
    same_cards "$WORK/truth-before.json" "$WORK/truth-after-start.json"
  check "... runs.json not written again ($stamp)" test "$(runs_stamp)" = "$stamp"
  console=$(container_of "$LAB_PROJECT" console)
  check "the console's container restarted" docker restart -t 10 "$console"
  cards_now "$WORK/truth-after-restart.json"
  check "after a console restart, a page opened again: $(same_cards "$WORK/truth-before.json" "$WORK/truth-after-restart.json")" \
    same_cards "$WORK/truth-before.json" "$WORK/truth-after-restart.json"
}

truth_follow() {
  local out=$WORK/truth-follow.json
  check "make reset: a clean slate" make_lab reset
  check "a positive alert left waiting, $TRUTH_BETWEEN low-confidence alerts each to its end, then Approve on the page" \
    tutor_panel follow "$out" --kind positive --runs "$TRUTH_BETWEEN"
  said_panel
  [ -s "$out" ] || echo '{}' >"$out"
  check "... the $TRUTH_BETWEEN runs between ended and explained ($(json_get "$out" 'r.between && r.between.length'))" \
    holds "$out" "r.between.length === $TRUTH_BETWEEN && r.between.every((c) => ['success', 'error'].includes(c.status))"
  check "... the waiting run's card ends: \"$(json_get "$out" 'r.card && r.card.summary')\"" \
    holds "$out" "r.card.execution === r.waiting.execution && r.card.status === 'success' && r.card.verdict === 'as-asked'" \
    "JSON.stringify({status: r.card.status, verdict: r.card.verdict, summary: r.card.summary, unmet: r.card.unmet})"
}

truth_large() {
  local body=$WORK/truth-large.json code limit peak event
  event="evt-truth-large-$(date +%s)"
  node -e 'process.stdout.write(JSON.stringify({event_id: process.argv[1], event_type: "suspicious_login", user: "lab-admin",
    source_ip: "203.0.113.66", environment: "training", confidence: 40, successful_login: true,
    timestamp: new Date().toISOString(), notes: "x".repeat(5 << 20)}))' "$event" >"$body"
  limit=$(docker inspect -f '{{.HostConfig.Memory}}' "$(container_of "$LAB_PROJECT" console)")
  rm -f "$WORK/tutor-ready" "$WORK/tutor-stop"
  tutor_panel_bg "$WORK/truth-large.log" watch "$WORK/truth-large-cards.json" --until "$WORK/tutor-stop" --ready "$WORK/tutor-ready"
  ready_within "$WORK/tutor-ready" 60 || true
  sampler_start "$WORK/truth-large.samples"
  code=$(in_ns curl -s -o /dev/null -w '%{http_code}' --max-time 60 -H 'content-type: application/json' \
    --data-binary "@$body" "$EDITOR/webhook/suspicious-login" || true)
  sleep 8
  : >"$WORK/tutor-stop"
  wait "$TUTOR_BG" 2>/dev/null || true
  TUTOR_BG=""
  sampler_stop
  peak=$(awk '$2 > m {m = $2} END {printf "%d", m}' "$WORK/truth-large.samples")
  TRUTH_FIGURES="a 5 MiB run: console peak ${peak} MiB of $((limit / 1048576)) MiB"
  check "an alert of 5 MiB POSTed to the webhook: n8n took it ($code)" test "$code" = 200
  check "... the console up, its memory under its limit: peak ${peak} MiB of $((limit / 1048576)) MiB (docker stats)" \
    test -n "$peak" -a "$((peak * 1048576))" -lt "$limit" -a "$(docker inspect -f '{{.State.Running}}' "$(container_of "$LAB_PROJECT" console)")" = true
  check "... its run on the page, its alert cut: $(json_get "$WORK/truth-large-cards.json" "((c) => c ? c.verdict + ': ' + c.summary.slice(0, 80) + ' (alert ' + c.alert.length + ' characters)' : 'no card')(r.cards[0])")" \
    holds "$WORK/truth-large-cards.json" "r.cards.length > 0 && r.cards[0].alert.length < 8192 && (r.cards[0].alert.includes('$event') || /too large/.test(r.cards[0].kind + r.cards[0].summary))"
}

exercise_truth() {
  log "the tutor claims only what it saw: Reset, make reset, make stop / make start, a console restart, runs while one waits, a run of 5 MiB"
  local started=$SECONDS
  truth_reset
  truth_restarts
  truth_follow
  truth_large
  TRUTH_SECONDS=$((SECONDS - started))
  log "the truth part: $TRUTH_SECONDS s (${TRUTH_FIGURES:-})"
}
