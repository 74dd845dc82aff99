# shellcheck shell=bash
# Nothing a trainee builds is lost (part of test/lab/run.sh, on the exercise lab after the scripted trainee
# published the whole workflow): a scratch workflow with pinned data beside it; `make save`; `make stop` and
# `make start`; an engine restart (the private engine's daemon stopped and started on the same data); a
# broken lab repaired by `make up`; `make down` with a failing save removing nothing; `make down`, `make up`
# (a fresh exercise), `make restore` (twice: no duplicate), and a restore onto a taken webhook path. After
# each, the editor holds exactly the trainee's workflows and `make check STAGE=enrich` passes; a workflow
# edited after a save, then `make restore` (its save first: the edited version kept). Sets the figures
# SAVE_SECONDS, STOP_SECONDS, START_SECONDS, ENGINE_RETURN_SECONDS, RESTORE_SECONDS, RESTORE_EDIT_SECONDS.
# Two steps: exercise_keep up to `make start`, exercise_keep_restart from the engine's restart on.
#   needs: exercise.sh sourced (EDITOR, ENV_FILE, trainee, check_stage, webhook_listens)

# trainee_does ARGS...: the scripted trainee (test/lab/trainee.ts) with the lab's login.
trainee_does() {
  TRAINEE_EMAIL=$(env_of "$ENV_FILE" N8N_OWNER_EMAIL) TRAINEE_PASSWORD=$(env_of "$ENV_FILE" N8N_OWNER_PASSWORD) \
    in_ns timeout 120 npx tsx test/lab/trainee.ts --n8n "$EDITOR" "$@"
}
# What the trainee sees in the editor, one workflow a line: name, published or not, pinned nodes.
editor_workflows() { trainee_does --list; }
# same_workflows WHEN: the editor holds exactly what it held before the save ($WORK/workflows-before).
same_workflows() {
  editor_workflows >"$WORK/workflows-$1" 2>&1 || { cat "$WORK/workflows-$1"; return 1; }
  diff "$WORK/workflows-before" "$WORK/workflows-$1"
}
# until_listening SECONDS: the trainee's webhook listens again within SECONDS.
until_listening() {
  local deadline=$((SECONDS + $1))
  until webhook_listens; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 2
  done
}
lab_containers() { docker ps -aq --filter label=com.docker.compose.project=soar-lab | sort; }
running_count() { docker ps -q --filter label=com.docker.compose.project=soar-lab | grep -c . || true; }
# The services `up` runs, as compose.yaml declares them (the tools' profile is not among them).
service_count() { docker compose -f "$ROOT/compose.yaml" --env-file "$ENV_FILE" config --services | grep -c .; }

# The engine's daemon stopped as a host shutdown stops it (SIGTERM, its containers stopped with it), then
# started again on the same data root: what a reboot or `systemctl restart docker` does.
restart_engine() {
  local pid dir=$STARTED_ENGINE
  [ -n "$dir" ] || { echo "not our engine: cannot restart it"; return 1; }
  pid=$(cat "$dir/state/dockerd.pid")
  kill -TERM "$pid"
  for _ in $(seq 90); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  ! kill -0 "$pid" 2>/dev/null || { echo "dockerd still runs 90 s after SIGTERM"; return 1; }
  stop_engine
  start_engine "$dir" "$ENGINE_NETNS" >/dev/null
}

exercise_keep() {
  log "nothing lost: save, stop and start"
  local out rc started password stamp total SAVES=$LAB_SAVE_DIR/_default
  check "the trainee also keeps a scratch workflow with pinned data, unpublished" trainee_does --scratch
  editor_workflows >"$WORK/workflows-before"
  total=$(grep -c . "$WORK/workflows-before")
  check "the editor holds the trainee's workflows, two published, one with pinned data ($(tr '\n\t' ';,' <"$WORK/workflows-before"))" \
    test "$(grep -c $'\tpublished' "$WORK/workflows-before")/$(grep -c 'pinned 1' "$WORK/workflows-before")" = 2/1

  started=$SECONDS
  rc=0
  out=$(make_lab save 2>&1) || rc=$?
  SAVE_SECONDS=$((SECONDS - started))
  stamp=$(find "$SAVES" -mindepth 1 -maxdepth 1 -type d -name '2*' 2>/dev/null | sort | tail -n 1)
  check "make save: one line naming the save ($(tail -n 1 <<<"$out" | cut -c1-110))" \
    test "$rc" = 0 -a "$(said_lines "$out")" = 1 -a -n "$stamp" -a -n "$(grep -oF "saved/_default/${stamp##*/}/" <<<"$out")"
  check "... one file a workflow and an index: all $total, 2 published, 1 with pinned data" test \
    "$(find "$stamp/workflows" -name '*.json' | grep -c .)/$(grep -c '"published":true' "$stamp/index.json")/$(grep -c '"pinned_nodes":1' "$stamp/index.json")" = "$total/2/1"
  check "... readable by the trainer only (the saves' folder and its folders 700, the files 600)" test \
    "$(stat -c %a "$LAB_SAVE_DIR" "$SAVES" "$stamp" | sort -u)/$(find "$stamp" -type f -exec stat -c %a {} + | sort -u)" = 700/600

  password=$(env_of "$ENV_FILE" N8N_OWNER_PASSWORD)
  started=$SECONDS
  check "make stop" make_lab stop
  STOP_SECONDS=$((SECONDS - started))
  check "... every container of the lab is stopped, none removed" test "$(running_count)/$(lab_containers | grep -c .)" = "0/$(service_count)"
  rc=0
  out=$(make_lab save 2>&1) || rc=$?
  check "make save on the stopped lab: its database started for the export ($(tail -n 1 <<<"$out" | cut -c1-90))" \
    test "$rc" = 0 -a -n "$(grep -o "$total workflow(s), 2 published" <<<"$out")"
  check "... and the lab is stopped again, nothing left of the export" test "$(running_count)/$(lab_containers | grep -c .)" = "0/$(service_count)"
  started=$SECONDS
  rc=0
  make_lab start >"$WORK/start.log" 2>&1 || rc=$?
  check "make start: ready, and prints the same addresses and login as make up (exit $rc)" \
    grep -qF "n8n editor:  $EDITOR   login trainee@soar-lab.test   password $password" "$WORK/start.log"
  check "... the published workflow listens again" until_listening 60
  START_SECONDS=$((SECONDS - started))
  check "... the editor holds exactly the trainee's workflows" same_workflows after-start
  check "... make check STAGE=enrich passes" passes_stage enrich
}

# The rest, from the engine's restart: with no lab of another part on the engine (test/lab/run.sh), whose
# labs it would restart too, and whose work would make the figures other than one lab's.
exercise_keep_restart() {
  local out rc started stamp before total SAVES=$LAB_SAVE_DIR/_default
  log "nothing lost: an engine restart, a repair, down and restore"
  total=$(grep -c . "$WORK/workflows-before")
  started=$SECONDS
  # Not through check: its command substitution would wait on the new daemon's inherited output.
  if restart_engine >"$WORK/restart-engine.log" 2>&1; then
    pass "the engine restarts (its daemon stopped with SIGTERM and started on the same data)"
  else
    fail "the engine restarts" "$(tail -n 3 "$WORK/restart-engine.log" | tr '\n' ' ')"
  fi
  check "... the lab comes back by itself, its workflow listening (within 300 s)" until_listening 300
  ENGINE_RETURN_SECONDS=$((SECONDS - started))
  check "... the editor holds exactly the trainee's workflows" same_workflows after-engine
  check "... make check STAGE=enrich passes" passes_stage enrich

  docker rm -f "$(container_of soar-lab n8n)" >/dev/null
  # The console's gate still listens on the editor's port: it connects, finds no n8n, and closes the
  # connection unanswered. Not a refused connection (the gate gone too) nor silence (a host that hangs).
  check "control: with n8n's containers removed, the webhook gets no status line: the gate connects and closes" \
    closed_no_status in_ns curl -s -o /dev/null --max-time 10 -X POST "$WEBHOOK" -H 'content-type: application/json' -d '{}'
  refute "... and the probe that the workflow listens fails" webhook_listens
  rc=0
  out=$(make_lab up 2>&1) || rc=$?
  check "make up repairs the broken lab (exit $rc: $(grep -m 1 'not up' <<<"$out" | cut -c1-90))" test "$rc" = 0
  check "... its workflow listens again" until_listening 60
  check "... the editor holds exactly the trainee's workflows" same_workflows after-repair
  check "... make check STAGE=enrich passes" passes_stage enrich

  : >"$WORK/not-a-folder"
  before=$(lab_containers)
  rc=0
  out=$(make_lab down LAB_SAVE_DIR="$WORK/not-a-folder/saved" 2>&1) || rc=$?
  check "make down with a failing save: refused in one line, naming LAB_FORCE_DOWN=1 ($(head -c 120 <<<"$out"))" \
    test "$rc" != 0 -a "$(said_lines "$out")" = 1 -a -n "$(grep -o 'LAB_FORCE_DOWN=1' <<<"$out")"
  rc=0
  out=$(make_lab down FORCE=1 2>&1) || rc=$?
  check "make down FORCE=1: refused in one line naming LAB_FORCE_DOWN=1 ($(head -c 120 <<<"$out"))" \
    test "$rc" != 0 -a "$(said_lines "$out")" = 1 -a -n "$(grep -o 'is LAB_FORCE_DOWN=1' <<<"$out")"
  check "... it removed nothing: the same containers, all running, the settings file" \
    test "$(lab_containers)/$(running_count)/$(test -f "$ENV_FILE" && echo kept)" = "$before/$(service_count)/kept"
  check "... the editor holds exactly the trainee's workflows" same_workflows after-failed-down

  rc=0
  out=$(make_lab down 2>&1) || rc=$?
  stamp=$(find "$SAVES" -mindepth 1 -maxdepth 1 -type d -name '2*' | sort | tail -n 1)
  check "make down saves first; its closing line names the save ($(tail -n 1 <<<"$out" | cut -c1-120))" \
    test "$rc" = 0 -a -n "$(tail -n 1 <<<"$out" | grep -oF "saved/_default/${stamp##*/}/")"
  check "make up after make down is a fresh exercise" make_lab up
  check "... with an empty editor" test -z "$(editor_workflows)"
  started=$SECONDS
  rc=0
  out=$(make_lab restore 2>&1) || rc=$?
  RESTORE_SECONDS=$((SECONDS - started))
  check "make restore brings back the latest save ($(tail -n 1 <<<"$out" | cut -c1-110))" \
    test "$rc" = 0 -a -n "$(grep -o "restored $total workflow(s).*2 published again" <<<"$out")"
  check "... the published workflow listens" until_listening 60
  check "... the editor holds exactly the trainee's workflows, published as they were, pinned data kept" same_workflows after-restore
  check "... make check STAGE=enrich passes" passes_stage enrich
  check "make restore again" make_lab restore
  check "... makes no duplicate: exactly the trainee's workflows" same_workflows after-restore-twice
  restore_after_an_edit


  check "the trainee unpublishes, and the reference takes the webhook path (make solution)" restore_onto_taken_path
  rc=0
  out=$(make_lab restore FROM="$stamp" 2>&1) || rc=$?
  check "make restore FROM=...: the workflow whose path is taken is restored unpublished, named in one line ($(grep -m 1 'restored unpublished' <<<"$out" | cut -c1-110))" \
    test "$rc" = 0 -a "$(grep -c 'restored unpublished: "My Suspicious Login Response"' <<<"$out")" = 1
}

restore_onto_taken_path() { trainee_does --unpublish && make_lab solution; }

# The node count a save's index records for the trainee's workflow: nodes_in SAVE.
nodes_in() { grep -F '"name":"My Suspicious Login Response"' "$1/index.json" | sed -E 's/.*"nodes":([0-9]+).*/\1/'; }
# The node count of the trainee's workflow in the editor (n8n's public API with the lab's key).
nodes_in_editor() {
  local id
  id=$(grep -F '"name":"My Suspicious Login Response"' "$1/index.json" | sed -E 's/.*"id":"([A-Za-z0-9]+)".*/\1/')
  n8n_api GET "/workflows/$id" >"$WORK/workflow-now.json" && json_get "$WORK/workflow-now.json" 'r.nodes.length'
}

# A workflow edited after a save, then `make restore`: the restore saves first, so the edited version is in
# the save it made, and the saved version is back in the editor. Sets RESTORE_EDIT_SECONDS.
restore_after_an_edit() {
  local out rc=0 saved made started edited
  out=$(make_lab save 2>&1) || rc=$?
  saved=$(find "$SAVES" -mindepth 1 -maxdepth 1 -type d -name '2*' | LC_ALL=C sort | tail -n 1)
  check "make save before an edit ($(tail -n 1 <<<"$out" | cut -c1-90))" test "$rc" = 0 -a -n "$saved"
  check "the trainee edits their workflow after the save (back to the enrich stage)" trainee enrich
  edited=$(nodes_in_editor "$saved")
  check "... the editor's workflow now has fewer nodes than the saved one ($edited < $(nodes_in "$saved"))" \
    test "${edited:-0}" -gt 0 -a "${edited:-0}" -lt "$(nodes_in "$saved")"
  started=$SECONDS
  rc=0
  out=$(make_lab restore 2>&1) || rc=$?
  RESTORE_EDIT_SECONDS=$((SECONDS - started))
  made=$(find "$SAVES" -mindepth 1 -maxdepth 1 -type d -name '2*' | LC_ALL=C sort | tail -n 1)
  check "make restore after the edit: its closing line names the save it restored and the save it made ($(tail -n 1 <<<"$out" | cut -c1-160))" \
    test "$rc" = 0 -a "$made" != "$saved" -a -n "$(tail -n 1 <<<"$out" | grep -F "_default/${saved##*/} into" | grep -F "saved in $SAVES/${made##*/}/")"
  check "... the edited version is in the save restore made ($(nodes_in "$made") nodes), recorded as made by the restore" \
    test "$(nodes_in "$made")" = "$edited" -a -n "$(grep -F '"made_by": "restore"' "$made/index.json")"
  check "... the saved version is back in the editor ($(nodes_in "$saved") nodes)" test "$(nodes_in_editor "$saved")" = "$(nodes_in "$saved")"
  check "... the editor holds exactly the trainee's workflows" same_workflows after-edit-restore
  check "... the published workflow listens" until_listening 60
  check "... make check STAGE=case-lookup passes (the edited version failed it)" passes_stage case-lookup
}
