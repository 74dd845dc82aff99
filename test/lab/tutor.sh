# shellcheck shell=bash
# The tutor beside every run, on the real lab, in Chromium (part of test/lab/run.sh's exercise, and its own
# LAB_TEST_PARTS=tutor on a lab of its own, where make down must keep runs.json on the host): the
# console's Your runs panel (app/tutor/, app/console/client/runs-panel.ts) read as a trainee sees it, with
# test/lab/tutor-panel.ts, and held to n8n's own record of each run (its public API with the lab's key):
#   1. the guide's starter up to Validate published, a positive test alert from the console's Send a test
#      alert: within 2 s of the run's end its card says it stopped after Valid? where Enrich was expected,
#      with the checker's hint, a mismatch line and a link that opens Valid?'s panel in that run
#      (test/editor/open-run.ts); reports/runs.json in the console's volume has it;
#   2. the trainee's whole workflow published: a positive alert shown waiting with every stage up to the
#      approval, Approve pressed on the page, the same card then ended, as asked, the block and the case
#      among what the systems received, counted once in runs.json;
#   3. the stage checker's own runs (make check STAGE=validate ARGS=--only, a page open) not listed;
#   4. two alerts sent at once: told apart, or both said to overlap (cannot tell, "another run ran at the
#      same time") exactly when n8n's own times overlap; never a card with another run's alert;
#   5. a run from n8n's editor (Execute workflow in Chromium, the alert POSTed to /webhook-test/...) shown
#      as from the editor;
#   6. figures: the time from n8n's stoppedAt to the card, median and worst of LAB_TUTOR_RUNS (20); the
#      console's processor and memory (docker stats) idle and during a burst of that many runs, with the
#      tutor on (a page open) and off (no page open). The control: with no page open the console sends
#      nothing to n8n (its n8n-front interface's bytes), and runs.json does not move; a page opened catches
#      up on those runs.
#      (Part 6 and its probes: test/lab/tutor-figures.sh.)
# Each run is of the lab as the part finds it: it resets the mock API first, and leaves the trainee's whole
# workflow published and the starter unpublished.
#   needs: exercise.sh (EDITOR, ENV_FILE, CONSOLE_URL, LAB_PROJECT, lab_trainee, trainee, n8n_api),
#   starters.sh (opens_run, check_only, starter_said), tutor-figures.sh (tutor_figures), lib.sh; sets
#   TUTOR_SECONDS, TUTOR_FIGURES and TUTOR_STAMP (runs.json's total and time, for tutor_kept after make down)

TUTOR_CONSOLE=$CONSOLE_URL
# The runs of each burst, the time between two alerts and the idle spans: enough to hold the promises here
# (each card within 2 s, nothing said to n8n without a page); `make bench-tutor` takes the figures with 20
# runs one every 2 s and 15 s idle.
TUTOR_RUNS=${LAB_TUTOR_RUNS:-8}
TUTOR_EVERY_MS=${LAB_TUTOR_EVERY_MS:-1500}
TUTOR_IDLE_SECONDS=${LAB_TUTOR_IDLE_SECONDS:-8}
# The tutor's promise: a run on the page within 2 s of its end.
TUTOR_WITHIN_MS=2000
TUTOR_STARTER='Starter: up to Validate'
TUTOR_WORKFLOW='My Suspicious Login Response'
TUTOR_BG=""

# tutor_driver COMMAND OUT ARGS...: the Chromium driver, signed in to the console (and to n8n, for editor).
tutor_driver() {
  local command=$1 out=$2
  shift 2
  CONSOLE_SECRET=$(env_of "$ENV_FILE" CONSOLE_SECRET) TRAINEE_EMAIL=$(env_of "$ENV_FILE" N8N_OWNER_EMAIL) \
    TRAINEE_PASSWORD=$(env_of "$ENV_FILE" N8N_OWNER_PASSWORD) \
    in_ns timeout 420 npx tsx test/lab/tutor-panel.ts "$command" --console "$TUTOR_CONSOLE" --out "$out" "$@"
}
# tutor_panel COMMAND OUT ARGS...: the driver, its lines also in $WORK/tutor-panel.log (shown by said_panel).
tutor_panel() {
  local rc=0
  tutor_driver "$@" >"$WORK/tutor-panel.log" 2>&1 || rc=$?
  cat "$WORK/tutor-panel.log"
  return "$rc"
}
said_panel() { sed 's/^/        /' "$WORK/tutor-panel.log" 2>/dev/null | cut -c1-240; }
# tutor_panel_bg LOG COMMAND OUT ARGS...: the driver in the background (its pid in TUTOR_BG).
tutor_panel_bg() {
  local log=$1
  shift
  tutor_driver "$@" >"$log" 2>&1 &
  TUTOR_BG=$!
}
# tutor_stop: what the part started in the background, ended (run.sh's clean-up calls it).
tutor_stop() {
  [ -z "$TUTOR_BG" ] || kill_tree "$TUTOR_BG"
  [ -z "${TUTOR_SAMPLER:-}" ] || kill_tree "$TUTOR_SAMPLER"
  TUTOR_BG=""
  TUTOR_SAMPLER=""
}
# ready_within FILE SECONDS: FILE exists within SECONDS (the driver's page is live).
ready_within() {
  for _ in $(seq "$(($2 * 4))"); do [ -e "$1" ] && return 0; sleep 0.25; done
  return 1
}

# holds FILE COND [WHY]: COND, a JavaScript expression over `r` (FILE's JSON), is true; else prints WHY
# (an expression too; default the start of r).
holds() {
  node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const at = (e) => new Function("r", "return (" + e + ")")(r);
    if (!at(process.argv[2])) { console.log(String(at(process.argv[3])).slice(0, 400)); process.exit(1); }' \
    "$1" "$2" "${3:-JSON.stringify(r).slice(0, 400)}"
}

# n8n_run ID: n8n's record of one run, one line: status, mode, startedAt, stoppedAt (- while it goes on),
# the event_id its Webhook received (- for none) and when it was busy: its nodes' times (startTime for
# executionTime), those less than a second apart joined, as from-to pairs in ms joined by commas.
n8n_run() {
  n8n_api GET "/executions/$1?includeData=true" | node -e '
    let t = "";
    process.stdin.on("data", (d) => (t += d)).on("end", () => {
      const e = JSON.parse(t);
      const hook = (e.workflowData?.nodes ?? []).find((n) => n.type === "n8n-nodes-base.webhook");
      const item = e.data?.resultData?.runData?.[hook?.name]?.[0]?.data?.main?.[0]?.[0]?.json;
      const spans = Object.values(e.data?.resultData?.runData ?? {}).flat()
        .filter((x) => typeof x.startTime === "number").map((x) => [x.startTime, x.startTime + (x.executionTime ?? 0)])
        .sort((x, y) => x[0] - y[0]).reduce((m, s) => {
          const last = m[m.length - 1];
          if (last && s[0] <= last[1] + 1000) last[1] = Math.max(last[1], s[1]); else m.push(s);
          return m;
        }, []);
      console.log([e.status, e.mode, e.startedAt, e.stoppedAt ?? "-", item?.body?.event_id ?? "-", spans.map((s) => s.join("-")).join(",") || "-"].join(" "));
    });'
}
# n8n_runs_since ISO: the ids of n8n's runs started at or after ISO, one a line (its newest 100).
n8n_runs_since() {
  n8n_api GET '/executions?limit=100' | node -e '
    let t = "";
    process.stdin.on("data", (d) => (t += d)).on("end", () => {
      for (const e of JSON.parse(t).data) if (e.startedAt >= process.argv[1]) console.log(e.id);
    });' "$1"
}
# workflow_field NAME EXPR: EXPR over `w`, the editor's workflow NAME (n8n's public API).
workflow_field() {
  n8n_api GET /workflows | node -e '
    const w = JSON.parse(require("fs").readFileSync(0, "utf8")).data.find((x) => x.name === process.argv[1]);
    if (w) console.log(new Function("w", "return (" + process.argv[2] + ")")(w));' "$1" "$2"
}
# The card's run is the run of the card's alert (n8n's Webhook received that event_id): run_is_alert ID EVENT.
run_is_alert() {
  local got
  got=$(n8n_run "$1" | cut -d' ' -f5)
  [ "$got" = "$2" ] || { echo "n8n's run $1 received ${got:-nothing}, the card says $2"; return 1; }
}

# The console's reports/runs.json (its volume), parsed with RunsFileSchema: runs_file OUT.
runs_file() {
  docker exec "$(container_of "$LAB_PROJECT" console)" node -e 'process.stdout.write(require("fs").readFileSync("/reports/runs.json"))' \
    >"$1.raw" 2>/dev/null || { echo "no /reports/runs.json in the console"; return 1; }
  npx tsx test/lab/tutor-panel.ts runs-file "$1.raw" >"$1"
}
# runs_stamp: runs.json's total and updated_at ("none" without the file), read as it is (quick).
runs_stamp() {
  docker exec "$(container_of "$LAB_PROJECT" console)" node -e '
    try { const r = JSON.parse(require("fs").readFileSync("/reports/runs.json", "utf8")); console.log(r.total + " " + r.updated_at); }
    catch { console.log("none"); }' 2>/dev/null || echo none
}

# The console's own session, as a script signs in (the lab's secret when it has one): its token out.
TUTOR_JAR=""
console_token() {
  local secret
  TUTOR_JAR=$WORK/tutor-jar
  : >"$TUTOR_JAR"
  secret=$(env_of "$ENV_FILE" CONSOLE_SECRET)
  [ -z "$secret" ] || console_sign_in "$TUTOR_CONSOLE" "$secret" "$TUTOR_JAR" >/dev/null
  in_ns curl -s -b "$TUTOR_JAR" "$TUTOR_CONSOLE/api/session" | sed -E 's/.*"token":"([^"]+)".*/\1/'
}
# console_alert TOKEN KIND: POST /api/alert as the page does, without a page (no event stream: no tutor).
console_alert() {
  in_ns curl -s -o /dev/null -w '%{http_code}' -b "$TUTOR_JAR" -X POST "$TUTOR_CONSOLE/api/alert" \
    -H 'content-type: application/json' -H "origin: $TUTOR_CONSOLE" -H "x-console-token: $1" -d "{\"kind\":\"$2\"}"
}

# --- 1. a starter's run --------------------------------------------------------------------------------
tutor_starter() {
  local out=$WORK/tutor-starter.json rc=0 said wf valid exec url
  said=$(make_lab starter STAGE=enrich 2>&1) || rc=$?
  check "make starter STAGE=enrich: \"$TUTOR_STARTER\" in the editor ($(head -c 70 <<<"$said"))" starter_said "$rc" "$TUTOR_STARTER" "$said"
  check "the trainee publishes \"$TUTOR_STARTER\" (the guide's workflow up to Validate) as it is" lab_trainee --publish "$TUTOR_STARTER"
  check "in Chromium, the console's Send a test alert (positive): its run's card on the page" \
    tutor_panel alert "$out" --kind positive
  said_panel
  [ -s "$out" ] || echo '{}' >"$out"
  exec=$(json_get "$out" 'r.card ? r.card.execution : ""' || true)
  check "... the card's run ($exec) is n8n's run of that alert" run_is_alert "${exec:-none}" "$(json_get "$out" 'r.sent ? r.sent[0].event_id : ""')"
  check "... on the page within 2 s of the run's end (n8n's stoppedAt): $(json_get "$out" 'r.card && r.card.latency_ms') ms" \
    holds "$out" "r.card.latency_ms !== null && r.card.latency_ms >= 0 && r.card.latency_ms < $TUTOR_WITHIN_MS"
  check "... by webhook, the starter, n8n's status ($(json_get "$out" 'r.card && r.card.how'))" \
    holds "$out" "r.card.how === 'by webhook · $TUTOR_STARTER · run ${exec} (' + r.card.status + ')'"
  check "... its stages: Webhook, Validate" holds "$out" "r.card.stages.map((s) => s.stage).join() === 'webhook,validate'" \
    "r.card.stages.map((s) => s.stage).join()"
  check "... not as asked: \"$(json_get "$out" 'r.card && r.card.summary')\"" \
    holds "$out" "r.card.verdict === 'unmet' && r.card.summary === 'stopped after Valid?, where Enrich was expected'"
  check "... the checker's hint ($(json_get "$out" 'r.card && r.card.unmet && r.card.unmet.hint' | cut -c1-90))" \
    holds "$out" "r.card.unmet && /^enrich: /.test(r.card.unmet.text) && /^→ \\S/.test(r.card.unmet.hint)" "JSON.stringify(r.card.unmet)"
  check "... and a want/got line ($(json_get "$out" 'r.card && r.card.unmet && r.card.unmet.mismatch' | cut -c1-90))" \
    holds "$out" "/^mismatch: .*want .*, got /.test(r.card.unmet.mismatch)" "JSON.stringify(r.card.unmet)"
  wf=$(workflow_field "$TUTOR_STARTER" 'w.id' || true)
  valid=$(workflow_field "$TUTOR_STARTER" 'w.nodes.find((n) => n.name === "Valid?").id' || true)
  url="$EDITOR/workflow/$wf/executions/$exec/$valid"
  check "... its link opens Valid? in that run, in a new tab ($url)" \
    holds "$out" "r.card.link && r.card.link.href === '$url' && r.card.link.text === 'open Valid? in this run' && r.card.link.target === '_blank' && r.card.link.rel === 'noopener'" \
    "JSON.stringify(r.card.link)"
  check "that link, in Chromium signed in as the trainee, shows Valid?'s panel in that run (test/editor/open-run.ts)" \
    opens_run "$(json_get "$out" 'r.card && r.card.link ? r.card.link.href : "none"')" 'Valid?'
  sed 's/^/        /' "$WORK/open-run.log" 2>/dev/null | cut -c1-240
  check "reports/runs.json in the console's volume (RunsFileSchema) has that run: unmet at enrich, a try of enrich" \
    runs_has "$exec" "x.verdict === 'unmet' && x.unmet_stage === 'enrich' && x.reached === 'validate' && !x.from_editor && r.tries.enrich >= 1"
}
# runs_has EXEC COND: runs.json holds run EXEC once, COND true of it (`x`) and of the file (`r`).
runs_has() {
  runs_file "$WORK/tutor-runs.json" || return 1
  holds "$WORK/tutor-runs.json" "((x) => r.runs.filter((y) => y.execution_id === '$1').length === 1 && ($2))(r.runs.find((y) => y.execution_id === '$1'))" \
    "JSON.stringify(r.runs.find((y) => y.execution_id === '$1') || 'run $1 not in the file (' + r.runs.length + ' runs)') + ' tries ' + JSON.stringify(r.tries)"
}

# --- 2. the whole workflow: a run that waits, approved on the page ------------------------------------
tutor_approval() {
  local out=$WORK/tutor-approve.json exec before
  check "the trainee unpublishes the starter" lab_trainee --unpublish --name "$TUTOR_STARTER"
  check "the scripted trainee publishes the whole workflow (and the rollback)" trainee all
  before=$(runs_stamp)
  check "in Chromium, a positive test alert; its card once it waits; Approve pressed on the page; its card once it ends" \
    tutor_panel alert "$out" --kind positive --approve
  said_panel
  [ -s "$out" ] || echo '{}' >"$out"
  exec=$(json_get "$out" 'r.card ? r.card.execution : ""' || true)
  check "... the card's run ($exec) is n8n's run of that alert" run_is_alert "${exec:-none}" "$(json_get "$out" 'r.sent ? r.sent[0].event_id : ""')"
  # Every stage up to the approval, in the stages' order: Idempotency's check (Duplicate delivery?) comes
  # before Request approval in the guide's workflow; nothing of Block or Record yet.
  check "... waiting: shown waiting, every stage up to the approval ($(json_get "$out" 'r.waiting && r.waiting.stages.map((s) => s.stage).join()'))" \
    holds "$out" "r.waiting.status === 'waiting' && r.waiting.verdict === 'waiting' && /^waiting for its approval/.test(r.waiting.tags) && r.waiting.stages.map((s) => s.stage).join() === 'webhook,validate,enrich,case-lookup,decide,approve,idempotency' && r.waiting.unmet === null" \
    "JSON.stringify({status: r.waiting.status, verdict: r.waiting.verdict, tags: r.waiting.tags, stages: r.waiting.stages.map((s) => s.stage), summary: r.waiting.summary})"
  check "... Approve taken by the console ($(json_get "$out" 'JSON.stringify(r.approved).slice(0, 80)'))" holds "$out" 'r.approved && r.approved.ok === true'
  check "... then the same card ended, as the exercise asks ($(json_get "$out" 'r.card && r.card.status + ", " + r.card.summary'))" \
    holds "$out" "r.card.execution === r.waiting.execution && r.cards_of_run === 1 && r.card.status === 'success' && r.card.verdict === 'as-asked' && r.card.unmet === null" \
    "JSON.stringify({status: r.card.status, verdict: r.card.verdict, summary: r.card.summary, unmet: r.card.unmet, cards: r.cards_of_run})"
  check "... the block among what the systems received ($(json_get "$out" 'r.card && (r.card.received.find((x) => /^blocklist/.test(x)) || "none")'))" \
    holds "$out" "r.card.received.some((x) => /^blocklist\\s*POST \\/blocklist \\(2\\d\\d\\)then held 203\\.0\\.113\\.66 blocked/.test(x))" "JSON.stringify(r.card.received)"
  check "... and the case ($(json_get "$out" 'r.card && (r.card.received.find((x) => /^case.*then held/.test(x)) || "none")'))" \
    holds "$out" "r.card.received.some((x) => /^case\\s*(POST|PUT|PATCH) \\/cases\\S* \\(2\\d\\d\\)then held case /.test(x) && x.includes('case ' + r.sent[0].event_id + ': '))" "JSON.stringify(r.card.received)"
  check "... on the page within 2 s of the run's end: $(json_get "$out" 'r.card && r.card.latency_ms') ms" \
    holds "$out" "r.card.latency_ms !== null && r.card.latency_ms >= 0 && r.card.latency_ms < $TUTOR_WITHIN_MS"
  check "runs.json: that run once, ended, as asked; counted once (total ${before%% *} -> $(runs_stamp | cut -d' ' -f1))" \
    runs_has "$exec" "x.status === 'success' && x.verdict === 'as-asked' && r.total === ${before%% *} + 1"
}

# --- 3. the checker's runs ------------------------------------------------------------------------------
tutor_checker_runs() {
  local out=$WORK/tutor-watch-check.json since ids listed
  rm -f "$WORK/tutor-ready" "$WORK/tutor-stop"
  tutor_panel_bg "$WORK/tutor-watch-check.log" watch "$out" --until "$WORK/tutor-stop" --ready "$WORK/tutor-ready"
  if ! ready_within "$WORK/tutor-ready" 60; then
    fail "a console page open in Chromium" "$(cat "$WORK/tutor-watch-check.log")"
    tutor_stop
    return
  fi
  since=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)
  check_only validate || true
  sleep 4 # the tutor's polls: a run it would list is on the page by then
  touch "$WORK/tutor-stop"
  wait "$TUTOR_BG" || true
  TUTOR_BG=""
  ids=$(n8n_runs_since "$since" | paste -sd' ' || true)
  check "control: make check STAGE=validate ARGS=--only made runs in n8n ($(wc -w <<<"$ids") runs: ${ids:0:60}; exit $LAST_RC)" test -n "$ids"
  listed=$(json_get "$out" "r.cards.filter((c) => ' $ids '.includes(' ' + c.execution + ' ')).map((c) => c.execution).join(' ')" 2>&1 || echo "no page")
  check "... none of the checker's runs on the page, held open meanwhile (${listed:-none listed})" test -z "$listed"
}

# --- 4. two alerts at once --------------------------------------------------------------------------------
# pair_judged FILE: each card's alert is its own run's (n8n's Webhook), and the verdicts follow n8n's times:
# runs busy at the same time (their nodes' times) both cannot-tell with "another run ran at the same time"
# and the uncertain line; runs that were not, told apart (no uncertain line) with no request naming the
# other's event.
pair_judged() {
  local a b ra rb overlap
  a=$(json_get "$1" 'r.cards[0].execution + " " + r.cards[0].event')
  b=$(json_get "$1" 'r.cards[1].execution + " " + r.cards[1].event')
  if [ "${a% *}" = "${b% *}" ] || [ "${a#* }" = "${b#* }" ]; then echo "not two runs of two alerts: $a / $b"; return 1; fi
  run_is_alert "${a% *}" "${a#* }" || return 1
  run_is_alert "${b% *}" "${b#* }" || return 1
  ra=$(n8n_run "${a% *}")
  rb=$(n8n_run "${b% *}")
  # Each run's busy times, as n8n's node times give them: an overlap when a span of one meets one of the other.
  overlap=$(node -e '
    const [a, b] = process.argv.slice(1).map((l) => l.split(" ")[5].split(",").map((s) => s.split("-").map(Number)));
    console.log(a.some(([f, t]) => b.some(([g, u]) => f <= u + 1 && g <= t + 1)) ? "yes" : "no")' "$ra" "$rb")
  if [ "$overlap" = yes ]; then
    holds "$1" "r.cards.every((c) => c.verdict === 'cannot-tell' && /another run ran at the same time/.test(c.summary) && c.uncertain)" \
      "'n8n: the runs overlapped; the cards: ' + JSON.stringify(r.cards.map((c) => [c.verdict, c.uncertain, c.summary]))" || return 1
  else
    holds "$1" "r.cards.every((c, i) => !c.uncertain && c.verdict !== 'cannot-tell' && !c.received.some((x) => x.includes(r.cards[1 - i].event)))" \
      "'n8n: the runs did not overlap; the cards: ' + JSON.stringify(r.cards.map((c) => [c.verdict, c.uncertain, c.received]))" || return 1
  fi
  echo "overlapped in n8n: $overlap"
}
tutor_pair() {
  local out=$WORK/tutor-pair.json
  check "in Chromium, two low-confidence test alerts at once: both cards once both runs have ended" \
    tutor_panel pair "$out" --kind low_confidence
  said_panel
  [ -s "$out" ] || echo '{"cards":[{},{}]}' >"$out"
  local said
  if said=$(pair_judged "$out" 2>&1); then
    pass "... each card the run of its own alert; told apart or said to overlap as n8n's times show ($(tail -n 1 <<<"$said"); $(json_get "$out" 'r.cards.map((c) => c.verdict).join(", ")'))"
  else
    fail "... each card the run of its own alert; told apart or said to overlap as n8n's times show" "$(tail -n 2 <<<"$said" | tr '\n' ' ')"
  fi
}

# --- 5. a run from the editor -----------------------------------------------------------------------------
tutor_editor_run() {
  local out=$WORK/tutor-editor.json wf exec event
  wf=$(workflow_field "$TUTOR_WORKFLOW" 'w.id' || true)
  check "in Chromium: n8n's editor, \"$TUTOR_WORKFLOW\" opened, Execute workflow pressed, a low-confidence alert to /webhook-test/suspicious-login; its card" \
    tutor_panel editor "$out" --n8n "$EDITOR" --workflow "${wf:-none}"
  said_panel
  [ -s "$out" ] || echo '{}' >"$out"
  exec=$(json_get "$out" 'r.card ? r.card.execution : ""' || true)
  event=$(json_get "$out" 'r.sent ? r.sent[0].event_id : ""' || true)
  check "... n8n ran it from the editor (manual): $(n8n_run "${exec:-none}" 2>/dev/null | cut -d' ' -f1,2,5)" \
    test "$(n8n_run "${exec:-none}" 2>/dev/null | cut -d' ' -f2,5)" = "manual $event"
  check "... the card says so ($(json_get "$out" 'r.card && r.card.how'))" \
    holds "$out" "r.card.how === 'from the editor · $TUTOR_WORKFLOW · run $exec (' + r.card.status + ')'"
  check "... low confidence, as the exercise asks ($(json_get "$out" 'r.card && r.card.kind + "; " + r.card.summary'))" \
    holds "$out" "r.card.verdict === 'as-asked' && /^low confidence/.test(r.card.kind)" "JSON.stringify([r.card.verdict, r.card.kind, r.card.summary, r.card.unmet])"
  check "... on the page within 2 s of the run's end: $(json_get "$out" 'r.card && r.card.latency_ms') ms" \
    holds "$out" "r.card.latency_ms !== null && r.card.latency_ms >= 0 && r.card.latency_ms < $TUTOR_WITHIN_MS"
  check "control: the starter's run, sent by webhook, was not marked from the editor" \
    holds "$WORK/tutor-starter.json" "/^by webhook · /.test(r.card.how)" "r.card && r.card.how"
  check "runs.json marks it from the editor" runs_has "$exec" 'x.from_editor === true'
}

# tutor_kept: after make down, the runs the console's volume held are on the host (reports/runs.json, what
# the class tools read), the same file: its total and updated_at as they were before the lab went.
tutor_kept() {
  check "make down keeps the tutor's runs on the host: reports/runs.json, RunsFileSchema, total and time as in the volume ($TUTOR_STAMP)" \
    host_runs_are "$TUTOR_STAMP"
}
host_runs_are() {
  local got
  got=$(npx tsx test/lab/tutor-panel.ts runs-file reports/runs.json 2>&1 | node -e '
    let t = "";
    process.stdin.on("data", (d) => (t += d)).on("end", () => {
      try { const r = JSON.parse(t); console.log(r.total + " " + r.updated_at); } catch { console.log(t.trim().slice(0, 160)); }
    });')
  [ "$got" = "$1" ] || { echo "reports/runs.json: $got"; return 1; }
}

exercise_tutor() {
  log "the tutor: Your runs in the console, in Chromium, held to n8n's own record of each run"
  local started=$SECONDS
  check "make reset: a clean slate (no block, no waiting run)" make_lab reset
  tutor_starter
  tutor_approval
  tutor_checker_runs
  tutor_pair
  tutor_editor_run
  tutor_figures
  TUTOR_STAMP=$(runs_stamp)
  TUTOR_SECONDS=$((SECONDS - started))
  log "the tutor part: $TUTOR_SECONDS s"
}
