# shellcheck shell=bash
# Starters as a stuck trainee uses them, on the real lab (part of test/lab/run.sh's exercise, and its own
# LAB_TEST_PARTS=starters): for each stage of LAB_STARTER_STAGES, `make starter STAGE=s` adds the guide's
# workflow up to the stage before, node for node (names and types, in order) the guide's export of that
# stage (docker/workflows/stages/stage-NN-*.json); the trainee then takes it on through the guide's stage s
# (its nodes, connections and settings become the guide's export after s, through n8n's REST API with the
# trainee's login, as test/lab/trainee.ts does), publishes it, and `make check STAGE=s ARGS=--only` passes.
# For enrich, before that: the starter published as it is fails enrich, and the failure points at its run:
# a `run:` line with the editor's address of that run and the node where it stopped (the end of Validate:
# Validate or Valid?, "nothing after Valid? ran"); that address, opened in Chromium signed in as the trainee, shows that very run
# (test/editor/open-run.ts); the console's Check of enrich on its own carries the same pointer in its report.
# Publishing one starter unpublishes the one before (trainee.ts --put: n8n allows one workflow a path); at
# the end the last is unpublished and the trainee's own workflows are published again when they were.
#   needs: exercise.sh (EDITOR, ENV_FILE, CONSOLE_URL, lab_trainee, n8n_api), lib.sh; sets STARTERS_SECONDS

# Each quick on its own; approve waits out a silent approver (minutes) and rollback needs a second workflow.
LAB_STARTER_STAGES=${LAB_STARTER_STAGES:-validate enrich case-lookup decide block record idempotency connector-failure}
# The guide's workflow after each stage but the last (npm run generate writes them).
STAGES_DIR=docker/workflows/stages

# guide_stage_file STAGE [OFFSET]: the guide's export after STAGE (OFFSET -1: after the stage before it).
guide_stage_file() {
  local file n
  file=$(ls "$STAGES_DIR"/stage-[0-9][0-9]-"$1".json 2>/dev/null) || return 1
  n=$(basename "$file" | cut -c7-8)
  n=$((10#$n + ${2:-0}))
  ls "$STAGES_DIR"/stage-"$(printf %02d "$n")"-*.json 2>/dev/null
}
stage_title() { sed -n "s/^  '\{0,1\}$1'\{0,1\}: '\(.*\)',$/\1/p" app/stages/stages.ts | head -n 1; }
# file_nodes FILE: an export's nodes, one a line: name, a tab, type (as trainee.ts --nodes prints them).
file_nodes() { node -e 'for (const n of JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).nodes) console.log(n.name + "\t" + n.type)' "$1"; }

# check_only STAGE: `make check STAGE=... ARGS=--only` without Node.js; output in $WORK/check-only-STAGE.log,
# exit code in LAST_RC and out.
check_only() {
  local started=$SECONDS
  LAST_RC=0
  make_lab check STAGE="$1" ARGS=--only >"$WORK/check-only-$1.log" 2>&1 || LAST_RC=$?
  echo "$1 --only $((SECONDS - started)) s (exit $LAST_RC)" >>"$WORK/step-times"
  return "$LAST_RC"
}
passes_only() { check_only "$1" || { tail -n 15 "$WORK/check-only-$1.log"; return 1; }; }

# workflow_nodes NAME: the nodes of the editor's workflow NAME, one a line (name, a tab, type), read through
# n8n's public API with the lab's key (the trainee's sign-ins are kept for what the trainee does: n8n allows
# five a minute).
workflow_nodes() {
  n8n_api GET /workflows | node -e '
    const w = JSON.parse(require("fs").readFileSync(0, "utf8")).data.find((x) => x.name === process.argv[1]);
    if (!w) { console.log("no workflow named " + process.argv[1]); process.exit(1); }
    for (const n of w.nodes) console.log(n.name + "\t" + n.type);' "$1"
}
# starter_is_guide NAME FILE: the editor's workflow NAME has FILE's nodes, node for node.
starter_is_guide() {
  local got want
  got=$(workflow_nodes "$1") || { echo "$got"; return 1; }
  want=$(file_nodes "$2")
  [ "$got" = "$want" ] || { diff <(echo "$want") <(echo "$got") | head -n 8; return 1; }
}

# starter_said RC NAME OUT: make starter exited 0 and added NAME, or updated it (a starter added before).
starter_said() {
  [ "$1" = 0 ] && { grep -qF "added \"$2\" (id" <<<"$3" || grep -qF "updated \"$2\" (id" <<<"$3"; }
}

# run_line STAGE: the first `run:` line the last check of STAGE --only printed, without its indent.
run_line() { grep -m1 -E '^ +run: ' "$WORK/check-only-$1.log" | sed -E 's/^ +//'; }
# run_url STAGE: the run's address as the line gives it (opening the node to blame: .../executions/N/<node id>).
run_url() { run_line "$1" | grep -oE 'https?://[^ ]+/workflow/[^ /]+/executions/[0-9]+(/[^ /]+)?' | head -n 1; }
# run_of URL: the address of the run alone, without the node.
run_of() { grep -oE '^https?://[^ ]+/workflow/[^ /]+/executions/[0-9]+' <<<"$1"; }
# The nodes a run of the starter up to Validate ends at, where the checker's pointer must name one: the
# guide's stage 2 ends with Validate and its If node, Valid? (the run stops there: nothing comes after).
VALIDATE_ENDS='Validate|Valid\?'
# points_at_validate STAGE: the check failed, and its run line has the editor's address of a run and names
# the end of Validate as where the run stopped.
points_at_validate() {
  local line url
  line=$(run_line "$1")
  url=$(run_url "$1")
  if [ "$LAST_RC" = 0 ]; then echo "the check passed"; return 1; fi
  if [ -z "$line" ]; then
    echo "the failing check printed no run: line (the checker does not point at runs yet?): $(grep -m1 -E '^FAIL' "$WORK/check-only-$1.log" | cut -c1-90)"
    return 1
  fi
  [ -n "$url" ] || { echo "no run's address in: $line"; return 1; }
  [ "${url#"$EDITOR"/}" != "$url" ] || { echo "the run's address is not the editor's ($EDITOR): $url"; return 1; }
  [ "$(run_of "$url")" != "$url" ] || { echo "the run's address does not open a node: $url"; return 1; }
  grep -Eq "node: ($VALIDATE_ENDS):|after ($VALIDATE_ENDS) ran" <<<"$line" || { echo "Validate not named: $line"; return 1; }
}
run_node() { run_line "$1" | sed -nE 's/.* node: (.*): .*/\1/p'; }
# opens_run URL NODE: open-run.ts in Chromium, signed in as the trainee: the editor shows that run, NODE in it
# (with a node's id in URL: that node's panel open over the run).
opens_run() {
  TRAINEE_EMAIL=$(env_of "$ENV_FILE" N8N_OWNER_EMAIL) TRAINEE_PASSWORD=$(env_of "$ENV_FILE" N8N_OWNER_PASSWORD) \
    in_ns timeout 240 npx tsx test/editor/open-run.ts --url "$1" ${2:+--node "$2"} --shot "$WORK/open-run.png" \
    >"$WORK/open-run.log" 2>&1 || { cat "$WORK/open-run.log"; return 1; }
}

# console_only STAGE: the console's Check of STAGE on its own (POST /api/check {"stage", "only": true}) as
# its page runs it (signed in with the lab's console secret when it has one), until the run ends; then the
# report the console shows (GET /api/state's check) in $WORK/console-report-STAGE.json. Prints the exit.
console_only() {
  local console=$CONSOLE_URL jar=$WORK/console-jar secret token code
  : >"$jar"
  secret=$(env_of "$ENV_FILE" CONSOLE_SECRET)
  if [ -n "$secret" ]; then
    console_sign_in "$console" "$secret" "$jar" >/dev/null
  fi
  token=$(in_ns curl -s -b "$jar" "$console/api/session" | sed -E 's/.*"token":"([^"]+)".*/\1/')
  code=$(in_ns curl -s -o /dev/null -w '%{http_code}' -b "$jar" -X POST "$console/api/check" -H 'content-type: application/json' \
    -H "origin: $console" -H "x-console-token: $token" -d "{\"stage\":\"$1\",\"only\":true}")
  [ "$code" = 202 ] || { echo "POST /api/check answered $code"; return 1; }
  for _ in $(seq 300); do
    in_ns curl -s -b "$jar" "$console/api/check" >"$WORK/console-only-$1.json"
    json_get "$WORK/console-only-$1.json" 'r.running ? process.exit(1) : 0' >/dev/null 2>&1 && break
    sleep 1
  done
  # The console reads the report on its next poll.
  for _ in $(seq 15); do
    in_ns curl -s -b "$jar" "$console/api/state" >"$WORK/console-state-$1.json"
    json_get "$WORK/console-state-$1.json" "r.check && r.check.requested === '$1' && r.check.finished_at >= '$(json_get "$WORK/console-only-$1.json" 'r.started_at')' || process.exit(1)" \
      >/dev/null 2>&1 && break
    sleep 1
  done
  json_get "$WORK/console-state-$1.json" 'JSON.stringify(r.check)' >"$WORK/console-report-$1.json"
  json_get "$WORK/console-only-$1.json" 'r.exit'
}
# console_points_at_validate STAGE: the console's report has a failed result whose run has the editor's
# address of an execution and names Validate.
console_points_at_validate() {
  json_get "$WORK/console-report-$1.json" "(() => {
    const fails = (r && r.results || []).filter((x) => x.status === 'fail');
    const run = fails.map((x) => x.run).find((p) => p && p.url);
    if (!run) { console.log(fails.length + ' failed results, none with a run pointer (run: ' + JSON.stringify(fails[0] && fails[0].run) + ')'); process.exit(1); }
    const at = /\/workflow\/[^/]+\/executions\/(\d+)\/[^/]+$/.exec(run.url);
    const named = /^($VALIDATE_ENDS)\$/.test(run.node || '') || /after ($VALIDATE_ENDS) ran/.test(run.why);
    if (!at || run.execution_id !== at[1] || !named || !run.url.startsWith('$EDITOR/')) { console.log(JSON.stringify(run).slice(0, 200)); process.exit(1); }
    return run.url + ' node ' + run.node;
  })()" >"$WORK/console-run" || { cat "$WORK/console-run"; return 1; }
}

# The enrich proof: the starter up to Validate, published as it is, checked at enrich on its own.
starter_failure_points_at_run() {
  local name=$1 url base rc
  check "the trainee publishes \"$name\" as it is" lab_trainee --publish "$name"
  check_only enrich || true
  check "make check STAGE=enrich ARGS=--only fails: the starter has no Enrich (exit $LAST_RC)" test "$LAST_RC" != 0
  check "... its FAIL points at the run: the editor's address and Validate ($(run_line enrich | cut -c1-120))" \
    points_at_validate enrich
  url=$(run_url enrich)
  check "... that address, in Chromium signed in as the trainee, opens that run at the node's panel (${url:-no address})" \
    opens_run "${url:-no-address}" "$(run_node enrich)"
  sed 's/^/        /' "$WORK/open-run.log" 2>/dev/null | cut -c1-240
  # The control: an address of a run that does not exist opens no run, and open-run.ts says so.
  base=$(run_of "${url:-}")
  refute "control: the address of a run that does not exist (${base%/*}/999999) opens no run" \
    opens_run "${base%/*}/999999" ""
  rc=$(console_only enrich || true)
  check "the console's Check of enrich on its own fails too (exit $rc)" test -n "$rc" -a "$rc" != 0 -a "$rc" != null
  check "... its report carries the run pointer: the editor's address and Validate" console_points_at_validate enrich
  sed 's/^/        /' "$WORK/console-run" 2>/dev/null
}

# exercise_starters [STAGE...]: the stages given (default LAB_STARTER_STAGES). test/lab/run.sh runs enrich
# (Chromium opens its run) with the steps that drive Chromium, and the rest beside the other parts.
exercise_starters() {
  local stages=${*:-$LAB_STARTER_STAGES}
  log "starters ($stages): the guide's workflow up to the stage before, taken on through the guide's next stage"
  local started=$SECONDS stage before after name out rc trainee_published
  trainee_published=$(lab_trainee --list | grep -c '^My Suspicious Login .*	published' || true)
  check "the trainee unpublishes their own workflows (the starters take the webhook path)" lab_trainee --unpublish
  for stage in $stages; do
    before=$(guide_stage_file "$stage" -1)
    after=$(guide_stage_file "$stage")
    name="Starter: up to $(stage_title "$(basename "$before" .json | cut -c10-)")"
    rc=0
    out=$(make_lab starter STAGE="$stage" 2>&1) || rc=$?
    check "make starter STAGE=$stage adds \"$name\", unpublished ($(head -c 80 <<<"$out"))" \
      starter_said "$rc" "$name" "$out"
    check "... node for node the guide's $(basename "$before") ($(file_nodes "$before" | wc -l) nodes)" starter_is_guide "$name" "$before"
    if [ "$stage" = enrich ]; then
      starter_failure_points_at_run "$name"
    fi
    check "the trainee takes it through the guide's stage $stage: $(basename "$after"), published" \
      lab_trainee --put "$after" --name "$name"
    check "make check STAGE=$stage ARGS=--only passes" passes_only "$stage"
  done
  check "the trainee unpublishes the last starter, \"$name\"" lab_trainee --unpublish --name "$name"
  if [ "$trainee_published" -gt 0 ]; then
    check "the trainee publishes their own workflows again" trainee all
  fi
  STARTERS_SECONDS=$((${STARTERS_SECONDS:-0} + SECONDS - started))
}
# The starters that need no Chromium (every one but enrich), beside the other parts.
exercise_starters_beside() {
  local stage rest=()
  for stage in $LAB_STARTER_STAGES; do [ "$stage" = enrich ] || rest+=("$stage"); done
  [ "${#rest[@]}" = 0 ] || exercise_starters "${rest[@]}"
}
exercise_starters_in_chromium() { case " $LAB_STARTER_STAGES " in *" enrich "*) exercise_starters enrich ;; esac; }
