# shellcheck shell=bash
# The exercise as a trainee does it, on the real lab (part of test/lab/run.sh): `make up` gives an exercise
# with nothing published; the scripted trainee (test/lab/trainee.ts) builds a workflow in three steps
# through n8n's REST API with the lab's login, and after each `make check` passes that stage and fails the
# next with its hint; then the hardening, who reaches whom, `make reset` and `make down`. Every make
# command runs as a trainer types it, without Node.js. Sets the figures UP_SECONDS, IDLE_MIB and $WORK/step-times.

EDITOR=http://127.0.0.1:5678
CONSOLE_URL=http://127.0.0.1:8088
ENV_FILE=$ROOT/.env
WEBHOOK=$EDITOR/webhook/suspicious-login
LAB_PROJECT=soar-lab

# n8n_api METHOD PATH: n8n's public API with the lab's key, from the engine's namespace; the body out.
n8n_api() { in_ns curl -fsS -X "$1" "$EDITOR/api/v1$2" -H "x-n8n-api-key: $(env_of "$ENV_FILE" N8N_API_KEY)"; }

# trainee STEP: the scripted trainee builds up to STEP (validate, enrich, all) and publishes.
trainee() {
  TRAINEE_EMAIL=$(env_of "$ENV_FILE" N8N_OWNER_EMAIL) TRAINEE_PASSWORD=$(env_of "$ENV_FILE" N8N_OWNER_PASSWORD) \
    in_ns timeout 120 npx tsx test/lab/trainee.ts --n8n "$EDITOR" --upto "$1"
}

# check_stage STAGE: `make check STAGE=...` without Node.js; output in $WORK/check-STAGE.log, exit code out
# (make's: 2 for any failure) and in LAST_RC.
check_stage() {
  local started=$SECONDS
  LAST_RC=0
  make_lab check STAGE="$1" >"$WORK/check-$1.log" 2>&1 || LAST_RC=$?
  # A file, not a variable: check runs its command in a subshell.
  echo "$1 $((SECONDS - started)) s (exit $LAST_RC)" >>"$WORK/step-times"
  return "$LAST_RC"
}
passes_stage() { check_stage "$1" || { tail -n 15 "$WORK/check-$1.log"; return 1; }; }
# failed_with_hint STAGE: the last check of STAGE failed, that stage's summary says so, and a hint follows
# a failed expectation of it.
failed_with_hint() {
  if [ "$LAST_RC" = 0 ] || ! grep -Eq "^FAIL +stage $1:" "$WORK/check-$1.log" ||
    ! grep -A3 -E "^FAIL +$1 " "$WORK/check-$1.log" | grep -Eq '^ +hint: '; then
    echo "exit $LAST_RC"
    tail -n 8 "$WORK/check-$1.log"
    return 1
  fi
}
first_hint() { grep -m 1 -E '^ +hint: ' "$WORK/check-$1.log" | sed -E 's/^ +hint: //' | cut -c1-100; }

# console_check STAGE: the console's Check control as the trainee's browser uses it (its session token,
# POST /api/check, then GET /api/check until the run ends); the run's view in $WORK/console-check-STAGE.json,
# its exit code printed.
console_check() {
  local console=http://127.0.0.1:8088 token out="$WORK/console-check-$1.json"
  token=$(in_ns curl -s "$console/api/session" | sed -E 's/.*"token":"([^"]+)".*/\1/')
  in_ns curl -s -o /dev/null -w '%{http_code}' -X POST "$console/api/check" -H 'content-type: application/json' \
    -H "x-console-token: $token" -d "{\"stage\":\"$1\"}" | grep -qx 202 || { echo "POST /api/check not accepted"; return 1; }
  for _ in $(seq 300); do
    in_ns curl -s "$console/api/check" >"$out"
    json_get "$out" 'r.running ? process.exit(1) : 0' >/dev/null 2>&1 && break
    sleep 1
  done
  json_get "$out" 'r.exit'
}

exercise_up() {
  log "make up: an exercise lab, as a trainer starts it"
  local started=$SECONDS line
  if ! make_lab up >"$WORK/up.log" 2>&1; then
    cat "$WORK/up.log"
    fail "make up brings the real lab up ready"
    summary
  fi
  UP_SECONDS=$((SECONDS - started))
  pass "make up brings the real lab up ready, without Node.js (${UP_SECONDS} s)"
  sed 's/^/        /' "$WORK/up.log" | grep -v '^        *$' | tail -n 16
  for line in 'mode:        exercise: nothing is published' "n8n editor:  $EDITOR   login trainee@soar-lab.test   password Lab-" \
    "webhook:     POST $WEBHOOK" 'console:     http://127.0.0.1:8088' 'approval:    a run waits up to 20 s' \
    'check:       make check STAGE=webhook' 'reset:       make reset' 'reference:   make solution' 'remove:      make down'; do
    check "make up prints: ${line:0:60}" grep -qF "$line" "$WORK/up.log"
  done
  check "... and how long it took" grep -Eq '^Up: the lab, version [0-9]+\.[0-9]+\.[0-9]+, [0-9]+ s from make up to ready\.$' "$WORK/up.log"
  check "the settings file records the mode" test "$(env_of "$ENV_FILE" LAB_MODE)" = exercise

  local before out rc=0
  started() { docker ps -q --filter label=com.docker.compose.project=soar-lab | xargs docker inspect -f '{{.Name}} {{.State.StartedAt}}' | sort; }
  before=$(started)
  out=$(make_lab up 2>&1) || rc=$?
  check "make up again: exit 0, says the lab is already up" test "$rc" = 0 -a -n "$(grep -o 'already up' <<<"$out")"
  check "... no container was recreated or restarted" test "$before" = "$(started)"
  rc=0
  out=$(make_lab up LAB_MODE=demo 2>&1) || rc=$?
  check "make up LAB_MODE=demo on the running exercise lab is refused in one line ($(head -c 90 <<<"$out"))" \
    test "$rc" != 0 -a "$(said_lines "$out")" = 1 -a -n "$(grep -o 'is running with LAB_MODE=exercise' <<<"$out")"
}

exercise_build() {
  log "the exercise, as a trainee does it: nothing published, then three steps"
  local out rc=0 workflows
  workflows=$(n8n_api GET /workflows)
  check "a fresh exercise lab has no workflow in the editor" grep -q '"data":\[\]' <<<"$workflows"
  check "... and the webhook path answers 404" test "$(http_code POST "$WEBHOOK" '{}')" = 404
  check_stage webhook && rc=0 || rc=$?
  out=$(cat "$WORK/check-webhook.log")
  check "make check STAGE=webhook says, in one line, that nothing listens, and lists no failure (exit $rc: $(grep -i 'nothing listens' <<<"$out" | cut -c1-100))" \
    test "$rc" = 2 -a "$(grep -ci 'nothing listens' <<<"$out")" = 1 -a -z "$(grep -E '^FAIL' <<<"$out")"
  rc=$(console_check webhook || true)
  check "the console's Check of webhook, nothing built: the run ends with exit 2 and says nothing listens (exit $rc)" \
    test "$rc" = 2 -a -n "$(grep -io 'nothing listens' "$WORK/console-check-webhook.json" | head -n 1)"

  in_ns npx tsx test/lab/trainee.ts --export validate >"$WORK/upto-validate.json"
  check "trainee step 1 in the real editor, in Chromium: sign in with the printed login, the overview (no AI assistant anywhere), create, paste Webhook and Validate, save, publish" \
    editor_trainee "$WORK/upto-validate.json"
  check "make check STAGE=validate passes" passes_stage validate
  check_stage enrich || true
  check "make check STAGE=enrich fails Enrich with a hint ($(first_hint enrich))" failed_with_hint enrich
  exercise_starter
  check "trainee step 2: up to Enrich, published" trainee enrich
  check "make check STAGE=enrich passes" passes_stage enrich
  rc=$(console_check enrich || true)
  check "the console's Check of enrich, as the trainee's browser runs it: exit 0 (exit $rc)" test "$rc" = 0
  check "... and its last-check panel has that run (GET /api/state: check requested enrich, passed)" console_last_check enrich
  check_stage case-lookup || true
  check "make check STAGE=case-lookup fails Case lookup with a hint ($(first_hint case-lookup))" failed_with_hint case-lookup
  check "trainee step 3: the whole workflow and the rollback, published" trainee all
  check "make check STAGE=all passes every stage" passes_stage all
  check "... the seven fields judged from n8n's execution data with the lab's API key" \
    grep -Eq '^PASS +webhook .*all seven mapped fields appear in the execution data' "$WORK/check-all.log"
  check "the report is copied to reports/check-last.json on the host" json_get reports/check-last.json 'r.passed === true || process.exit(1)'
  check "the console's last-check panel has it (GET /api/state: check requested all, passed)" console_last_check all

  guide_commands >"$WORK/guide-commands"
  check "the trainee guide has commands to run ($(grep -c . "$WORK/guide-commands"))" test -s "$WORK/guide-commands"
  while IFS= read -r command; do
    check "the trainee guide's command runs as written: ${command:0:70}" guide_command_runs "$command"
  done <"$WORK/guide-commands"

  rc=0
  out=$(make_lab solution 2>&1) || rc=$?
  check "make solution while the trainee's workflow holds the path: refused in one line ($(head -c 100 <<<"$out"))" \
    test "$rc" != 0 -a "$(said_lines "$out")" = 1
}

# editor_trainee FILE: the trainee's first step through n8n's editor in Chromium (test/editor): sign in,
# the overview, no AI entry point, a new workflow with FILE's nodes pasted, saved and published (the
# guide's screenshots are test/lab/guide-shots.sh's).
editor_trainee() {
  TRAINEE_EMAIL=$(env_of "$ENV_FILE" N8N_OWNER_EMAIL) TRAINEE_PASSWORD=$(env_of "$ENV_FILE" N8N_OWNER_PASSWORD) \
    in_ns timeout 600 npx tsx test/editor/trainee-editor.ts --n8n "$EDITOR" --workflow "$1" \
    --name 'My Suspicious Login Response'
}

# A starter for enrich: added unpublished beside the trainee's work, which it leaves as it was; published by
# the trainee instead of their own, it passes validate and fails enrich with its hint; then the trainee
# takes their own workflow back.
exercise_starter() {
  local out rc=0 before
  before=$(TRAINEE_EMAIL=$(env_of "$ENV_FILE" N8N_OWNER_EMAIL) TRAINEE_PASSWORD=$(env_of "$ENV_FILE" N8N_OWNER_PASSWORD) \
    in_ns timeout 60 npx tsx test/lab/trainee.ts --n8n "$EDITOR" --list)
  out=$(make_lab starter STAGE=enrich 2>&1) || rc=$?
  check "make starter STAGE=enrich adds \"Starter: up to Validate\", unpublished ($(head -c 90 <<<"$out"))" \
    test "$rc" = 0 -a -n "$(grep -o 'added "Starter: up to Validate" (id [^)]*), unpublished' <<<"$out")"
  check "... the trainee's own workflow is untouched, still published" test "$before" = "$(editor_list | grep -v '^Starter: ')"
  check "the trainee unpublishes their own and publishes the starter" starter_published
  check "with the starter, make check STAGE=validate passes" passes_stage validate
  check_stage enrich || true
  check "... and make check STAGE=enrich fails Enrich with its hint ($(first_hint enrich))" failed_with_hint enrich
  check "the trainee unpublishes the starter" lab_trainee --unpublish --name 'Starter: up to Validate'
}
lab_trainee() {
  TRAINEE_EMAIL=$(env_of "$ENV_FILE" N8N_OWNER_EMAIL) TRAINEE_PASSWORD=$(env_of "$ENV_FILE" N8N_OWNER_PASSWORD) \
    in_ns timeout 120 npx tsx test/lab/trainee.ts --n8n "$EDITOR" "$@"
}
editor_list() { lab_trainee --list; }
starter_published() { lab_trainee --unpublish && lab_trainee --publish 'Starter: up to Validate'; }

# shellcheck source=../lib/reach.sh
. test/lib/reach.sh

exercise_isolation() {
  log "hardening in effect inside every container (every process, read from /proc)"
  local spec api n8n console api_ip outside_ip
  for spec in mock-api:1000 console:1000 n8n:1000 postgres:70; do
    check "${spec%%:*}: every process uid ${spec#*:}, no capabilities, NoNewPrivs, read-only root" \
      hardening_of "$(container_of soar-lab "${spec%%:*}")" "${spec#*:}"
  done
  docker network create "$OUTSIDE_NET" >/dev/null
  docker run -d --name "$OUTSIDE_BOX" --network "$OUTSIDE_NET" "$BASE_IMAGE" \
    node -e 'require("http").createServer((q,s)=>s.end("outside")).listen(8080,"0.0.0.0")' >/dev/null
  outside_ip=$(docker inspect -f "{{(index .NetworkSettings.Networks \"$OUTSIDE_NET\").IPAddress}}" "$OUTSIDE_BOX")
  refute "control: a container run without the hardening fails the same check" hardening_of "$OUTSIDE_BOX" 1000
  # The processor limits (compose's, n8n LAB_CPUS' default 1), as the engine applies them; the control is
  # the container run without them.
  check "processor limits: n8n 1 core, Postgres, the console and the mock API half, the walls a tenth" \
    has_cpu_limits soar-lab "console=0.5 mock-api=0.5 n8n=1 postgres=0.5 walls=0.1"
  check "control: the container run without them has none" test "$(docker inspect -f '{{.HostConfig.NanoCpus}}' "$OUTSIDE_BOX")" = 0

  log "reachability and egress"
  api=$(container_of soar-lab mock-api)
  n8n=$(container_of soar-lab n8n)
  console=$(container_of soar-lab console)
  api_ip=$(docker inspect -f '{{(index .NetworkSettings.Networks "soar-lab_lab-internal").IPAddress}}' "$api")
  check "the mock API has the lab network's .2 ($api_ip)" test "$api_ip" = 172.30.66.2
  check "n8n -> mock API by service name (http://mock-api:8081/health)" fetch_in "$n8n" http://mock-api:8081/health
  # n8n reaches the console's ports, and is answered nothing: the console closes every connection from
  # n8n-front (CONSOLE_REFUSED_CLIENTS) as it accepts it. The control: the console's own probe answered.
  control_reach "control: the console answers console:8088 from inside itself" reach_in "$console" http://console:8088/api/session
  check "n8n -> the console (console:8088): connected, closed without a status line (CONSOLE_REFUSED_CLIENTS)" \
    closed_unanswered "$n8n" http://console:8088/api/session
  check "n8n -> the console's editor gate (console:5678): likewise" closed_unanswered "$n8n" http://console:5678/healthz
  check "control: the console reaches n8n through its own gate" fetch_in "$console" http://127.0.0.1:5678/healthz
  control_reach "control: n8n reaches the mock API by its address $api_ip" reach_in "$n8n" "http://$api_ip:8081/health"
  refute_reach "a container on another network -> mock API by address" reach_in "$OUTSIDE_BOX" "http://$api_ip:8081/health"
  refute_reach "the console -> mock API by service name" reach_in "$console" http://mock-api:8081/health
  refute_reach "the console -> mock API by address $api_ip" reach_in "$console" "http://$api_ip:8081/health"
  check "the console shows the mock API's state through the socket, on 127.0.0.1:8088" \
    in_ns node -e "$FETCH" http://127.0.0.1:8088/api/state
  if [ -n "$ENGINE_NETNS" ]; then
    refute_reach "the engine host -> mock API by address (no address of the host on its network)" in_ns node -e "$REACH" "http://$api_ip:8081/health"
    control_reach "control: the engine host reaches the console by its address on the editor network, whose bridge holds the host's" \
      in_ns node -e "$REACH" "http://$(docker inspect -f '{{(index .NetworkSettings.Networks "soar-lab_editor").IPAddress}}' "$console"):8088/api/session"
  fi
  control_reach "control: the outside server answers inside its own network" reach_in "$OUTSIDE_BOX" "http://$outside_ip:8080/"
  refute_reach "mock API -> outside server (no egress)" reach_in "$api" "http://$outside_ip:8080/"
  refute_reach "n8n -> outside server (no egress)" reach_in "$n8n" "http://$outside_ip:8080/"
  docker rm -f "$OUTSIDE_BOX" >/dev/null
  docker network rm "$OUTSIDE_NET" >/dev/null
  IDLE_MIB=$(lab_memory soar-lab)
}

# The trainee guide's shell blocks (```sh; examples are ```text), one command a line, continuations joined.
guide_commands() {
  awk '/^```sh$/ {on = 1; next} /^```$/ {on = 0} on' docs/trainee-guide.md | sed -e ':a' -e '/\\$/N; s/\\\n//; ta'
}
# guide_command_runs COMMAND: as a trainee types it on the lab's machine (no Node.js): exit 0, and no
# answer of n8n's that nothing listens.
guide_command_runs() {
  local out
  out=$(as_trainer timeout 600 bash -c "$1" 2>&1) || { tail -n 5 <<<"$out"; return 1; }
  ! grep -q 'is not registered' <<<"$out" || { echo "$out"; return 1; }
}
# console_last_check STAGE: the console's last-check panel holds a passed check that asked for STAGE
# (waited for: the console reads the report on its next poll).
console_last_check() {
  for _ in $(seq 15); do
    in_ns curl -s http://127.0.0.1:8088/api/state >"$WORK/console-state.json"
    json_get "$WORK/console-state.json" "r.check && r.check.requested === '$1' && r.check.passed === true || process.exit(1)" &&
      return 0
    sleep 1
  done
  json_get "$WORK/console-state.json" 'JSON.stringify(r.check).slice(0, 200)'
  return 1
}
# Registered for POST: n8n answers a GET with "not registered for GET" (a probe that starts no run).
webhook_listens() { in_ns curl -s "$WEBHOOK" | grep -q 'not registered for GET'; }
health_ok() { make_lab health | grep -q '"case_mode": *"healthy"'; }

# A positive alert, which waits for approval; its resume URL once the approval request is in the state.
alert() { http_code POST "$WEBHOOK" "{\"event_id\":\"$1\",\"event_type\":\"suspicious_login\",\"user\":\"lab-admin\",\"source_ip\":\"203.0.113.66\",\"failed_attempts\":7,\"successful_login\":true,\"confidence\":92,\"environment\":\"training\"}"; }
state_json() { make_lab state; }
resume_url_of() { # resume_url_of EVENT_ID: waits (60 s at most) for its approval request, prints its URL
  local url
  for _ in $(seq 60); do
    url=$(state_json | node --import tsx test/lab/approver.ts resume-url "$1")
    [ -n "$url" ] && { echo "$url"; return 0; }
    sleep 1
  done
  return 1
}
# decide URL DECISION: POSTs the decision as the console does (n8n's 409 "running already" retried); the status
decide() { in_ns node --import tsx test/lab/approver.ts decide "$1" "$2"; }
# Requests in the journal other than the reset itself: what reached the mock API since.
journal_since_reset() {
  state_json | node -e 'let s="";process.stdin.on("data",c=>s+=c).on("end",()=>{const j=JSON.parse(s).journal.filter(e=>!(e.method==="POST"&&e.path==="/reset"));console.log(j.map(e=>e.method+" "+e.path+" "+e.status).join("; "))})'
}

exercise_reset() {
  log "make reset: no run started before it reaches the mock API afterwards; the workflows stay"
  local control_url control_code control_journal run_url reset_started rc=0 late_code deadline stale
  # The control: a plain API reset leaves the waiting run alive; when it resumes, it writes into the new
  # exercise. This is what `make reset` must prevent, and what the check below would see if it did not.
  alert reset-control-1 >/dev/null
  control_url=$(resume_url_of reset-control-1 || true)
  in_ns bash docker/lab.sh api POST /reset '{}' >/dev/null
  control_code=$(decide "$control_url" reject)
  for _ in $(seq 30); do [ -n "$(journal_since_reset)" ] && break; sleep 1; done
  control_journal=$(journal_since_reset)
  check "control: after a plain API reset, a waiting run still reaches the mock API (resume $control_code: ${control_journal:0:80})" \
    test -n "$control_journal"
  alert reset-run-1 >/dev/null
  run_url=$(resume_url_of reset-run-1 || true)
  reset_started=$SECONDS
  make_lab reset >"$WORK/reset.log" 2>&1 || rc=$?
  check "make reset stops the waiting run and resets ($(head -n 1 "$WORK/reset.log"))" \
    test "$rc" = 0 -a -n "$(grep -o 'stopped [1-9][0-9]* unfinished' "$WORK/reset.log")"
  late_code=$(decide "$run_url" approve)
  check "a decision sent after make reset is not taken (answered $late_code)" test "${late_code:0:1}" != 2
  check "make reset keeps the trainee's workflow: the webhook still listens" webhook_listens
  # Past its time limit, plus n8n's one-minute check of due waits: nothing from it in the journal.
  deadline=$((reset_started + APPROVAL_TIMEOUT_SECONDS + 70))
  while [ $SECONDS -lt $deadline ]; do
    [ -n "$(journal_since_reset)" ] && break
    sleep 5
  done
  stale=$(journal_since_reset)
  check "past its time limit (+70 s), nothing from the stopped run in the journal${stale:+ ($stale)}" test -z "$stale"
  check "make health: case_mode healthy, through the container" health_ok
}

exercise_down() {
  log "make down"
  local started=$SECONDS
  check "make down" make_lab down
  DOWN_SECONDS=$((SECONDS - started))
  check_nothing_left soar-lab "$ENV_FILE"
  # Only a lab that was checked has a report (LAB_TEST_PARTS=guide checks nothing).
  if [ -s "$WORK/step-times" ]; then
    check "make down keeps the reports on the host" test -s reports/check-last.json
  fi
}
