# shellcheck shell=bash
# make test-lab, part `update`: labs made by the version before this one brought to this checkout's with
# nothing lost, as a trainer does it. The previous version (UPDATE_FROM, 1.0.0: CHANGELOG.md) is checked
# out from git into a folder of its own (the trainer's checkout); there `make up LAB=upd` and
# `make class-up` with a class of two (upa, upb) make its labs; a trainee's workflow is published in each,
# the guide's workflows published (`make solution`), a starter added unpublished, a check run. Then this
# checkout's files are unpacked over that folder (a `git pull`, or a newer release unpacked over the old)
# and `make status`, `make up LAB=upd`, `make class-up` run there: each lab updated in one line, then
# held to what it was: the same workflows (ids, names, published: two saves compared), the published ones
# answering, the check history holding the earlier check, the console taking the same secret, n8n the
# same login, on the same ports. Last, the move (another layout) on a real engine: lab upd's record set
# to 0.9.0, the layouts before 1.0.0, with a credential made in its n8n, and `make up` saves, makes anew
# and restores it; held the same way, the credential opened by the new n8n. Then the move killed (during the
# import, by default: the old lab removed, the new one half filled, the work in saved/ alone; with
# LAB_TEST_UPDATE_KILLS="saved removed import", at each of its steps) and `make up` again: held the same way.
# Every step is killed in `make test` on a stand-in engine (test/appliance/lab-update.test.ts); here one, for CI's time.
#   needs: ROOT, WORK, ENGINE_NETNS, NODE_IMAGE and APP_ARTEFACTS (this checkout's, run.sh), lib.sh
UPDATE_FROM=${LAB_TEST_UPDATE_FROM:-a857a1f6ae5a57685e33378c255df03cb4c20eca}
UPDATE_FROM_VERSION=1.0.0
UPDATE_DIR=$WORK/trainer
# This checkout's version (the one declaration's copy for the host scripts).
LAB_VERSION=$(sed -n 's/^LAB_VERSION=//p' "$ROOT/docker/lab/settings.generated.sh")
UPDATE_LABS="upd upa upb" UPDATE_HEADER=""
UPDATE_KILLS=${LAB_TEST_UPDATE_KILLS:-import}
# The part's figures (names of the variables run.sh prints at the end).
UPDATE_FIGURES="UPDATE_SECONDS UPDATE_UP_SECONDS UPDATE_CLASS_SECONDS UPDATE_MOVE_SECONDS"

# A trainee's own workflow: a webhook that answers as soon as it is called.
UPDATE_HELLO='{"name":"Trainee hello","nodes":[{"parameters":{"httpMethod":"POST","path":"upd-hello","options":{}},"name":"Webhook","type":"n8n-nodes-base.webhook","typeVersion":2,"position":[0,0],"webhookId":"5d0c6d1e-8f8c-4b8e-9a55-0c3f1d7e2a11"}],"connections":{},"settings":{}}'

# upd_make ARGS...: make in the trainer's folder, as a trainer types it (make_lab: a lab's creation under
# the lock every part's creations take).
upd_make() { (cd "$UPDATE_DIR" && make_lab "$@"); }
upd_env() { env_of "$UPDATE_DIR/labs/$1.env" "$2"; }

# The previous version's checkout, its own dist and its own artefacts image (its image is built from them).
update_old_checkout() {
  git -C "$ROOT" cat-file -e "$UPDATE_FROM^{commit}" 2>/dev/null || return 1
  git clone -q --no-checkout "$ROOT" "$UPDATE_DIR" && git -C "$UPDATE_DIR" checkout -q "$UPDATE_FROM" || return 1
  # The same dependencies (its lock differs in its own version only): this checkout's, linked.
  cp -al "$ROOT/node_modules" "$UPDATE_DIR/node_modules" && (cd "$UPDATE_DIR" && npm run build >/dev/null 2>&1) || return 1
  mkdir -p "$WORK/update-artefacts" || return 1
  (cd "$UPDATE_DIR" && WORK=$WORK/update-artefacts mock_api_artefacts "$NODE_IMAGE" soar-lab/mock-api-artefacts:update-from) ||
    return 1
  # The walls image is a platform image this test builds (test/lab/images): the same under the old tag.
  docker tag "soar-lab/walls:$LAB_VERSION" "soar-lab/walls:$UPDATE_FROM_VERSION"
}

# This checkout's files unpacked over the trainer's folder (its settings, saves and reports stay).
update_unpack() {
  git -C "$ROOT" ls-files -z --cached --others --exclude-standard |
    tar -C "$ROOT" --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -C "$UPDATE_DIR" -xf -
}

# update_snapshot LAB NAME: what must survive, in $WORK/update-NAME-LAB.*: the workflows (id, name,
# published) of a save, the settings a trainee meets.
update_snapshot() {
  local lab=$1 out save
  rm -f "$WORK/update-$2-$lab.workflows" "$WORK/update-$2-$lab.settings"
  out=$(upd_make save LAB="$lab" 2>&1) || { echo "make save: $out"; return 1; }
  save=$(sed -nE 's|.* to (.*)/ in [0-9]+ s.*|\1|p' <<<"$out")
  [ -f "$UPDATE_DIR/$save/index.json" ] || [ -f "$save/index.json" ] || { echo "no save in: $out"; return 1; }
  [ -f "$save/index.json" ] || save=$UPDATE_DIR/$save
  grep -o '"id":"[^"]*","name":"[^"]*","published":[a-z]*' "$save/index.json" | sort >"$WORK/update-$2-$lab.workflows"
  for name in LAB_EDITOR_PORT LAB_CONSOLE_PORT CONSOLE_SECRET N8N_OWNER_EMAIL N8N_OWNER_PASSWORD; do
    echo "$name=$(upd_env "$lab" "$name")"
  done >"$WORK/update-$2-$lab.settings"
}

# The lab's console history (its reports volume, read in its console container).
update_history() {
  docker exec "$(container_of "soar-lab-$1" console)" node -e \
    'process.stdout.write(require("fs").readFileSync("/reports/check-history.jsonl", "utf8"))' 2>/dev/null | grep '^{"at":"'
}

# update_made LAB: made by the previous version: a trainee's workflow published, a starter, a check.
update_made() {
  local lab=$1 url
  url=http://127.0.0.1:$(upd_env "$lab" LAB_EDITOR_PORT)/api/v1
  printf '%s' "$UPDATE_HELLO" | in_ns curl -fsS -X POST "$url/workflows" -H "x-n8n-api-key: $(upd_env "$lab" N8N_API_KEY)" \
    -H 'content-type: application/json' --data-binary @- >"$WORK/update-hello-$lab.json" || return 1
  in_ns curl -fsS -o /dev/null -X POST "$url/workflows/$(json_get "$WORK/update-hello-$lab.json" r.id)/publish" \
    -H "x-n8n-api-key: $(upd_env "$lab" N8N_API_KEY)" -H 'content-type: application/json' -d '{}' || return 1
  upd_make solution LAB="$lab" >/dev/null && upd_make starter LAB="$lab" STAGE=enrich >/dev/null || return 1
  upd_make check LAB="$lab" STAGE=webhook >"$WORK/update-check-$lab.log" 2>&1 || return 1
  update_history "$lab" | tail -n 1 >"$WORK/update-history-$lab" || return 1
  grep -q '^{"at":"' "$WORK/update-history-$lab" || return 1
  update_snapshot "$lab" before
}

# update_held LAB WHEN: the lab after an update, held to its snapshot before.
update_held() {
  local lab=$1 when=$2 port code
  update_snapshot "$lab" after >/dev/null || true
  check "$when: lab $lab holds the same workflows, published ones published ($(grep -c . "$WORK/update-before-$lab.workflows") in its save)" \
    cmp -s "$WORK/update-before-$lab.workflows" "$WORK/update-after-$lab.workflows"
  check "$when: lab $lab has the same ports, console secret and login" \
    cmp -s "$WORK/update-before-$lab.settings" "$WORK/update-after-$lab.settings"
  port=$(upd_env "$lab" LAB_EDITOR_PORT)
  code=$(http_code POST "http://127.0.0.1:$port/webhook/upd-hello" '{}')
  check "$when: lab $lab's published workflow answers on the same address ($code)" test "$code" = 200
  code=$(printf '{"emailOrLdapLoginId":"%s","password":"%s"}' "$(upd_env "$lab" N8N_OWNER_EMAIL)" "$(upd_env "$lab" N8N_OWNER_PASSWORD)" |
    in_ns curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/rest/login" -H 'content-type: application/json' --data-binary @-)
  check "$when: lab $lab's n8n takes the same login ($code)" test "$code" = 200
  port=$(upd_env "$lab" LAB_CONSOLE_PORT)
  rm -f "$WORK/update-jar-$lab"
  console_sign_in "http://127.0.0.1:$port" "$(upd_env "$lab" CONSOLE_SECRET)" "$WORK/update-jar-$lab" >/dev/null
  code=$(in_ns curl -s -o /dev/null -w '%{http_code}' -b "$WORK/update-jar-$lab" "http://127.0.0.1:$port/api/state")
  check "$when: lab $lab's console takes the same secret (its state after signing in: $code)" test "$code" = 200
  check "$when: lab $lab's check history holds the check made before ($(head -c 40 "$WORK/update-history-$lab"))" \
    grep -qxF "$(cat "$WORK/update-history-$lab")" <(update_history "$lab")
  check "$when: lab $lab records version $LAB_VERSION" test "$(upd_env "$lab" LAB_VERSION)" = "$LAB_VERSION"
}

update_part() {
  local out roster=$WORK/update-roster.txt lab start=$SECONDS t rc step
  log "update: labs made by $UPDATE_FROM_VERSION (${UPDATE_FROM:0:7}), updated by this checkout"
  if ! update_old_checkout >"$WORK/update-checkout.log" 2>&1; then
    check "the previous version's checkout builds (${UPDATE_FROM:0:7}; $(tail -n 1 "$WORK/update-checkout.log"))" false
    return 0
  fi
  printf 'upa\nupb\n' >"$roster"
  out=$(APP_ARTEFACTS=soar-lab/mock-api-artefacts:update-from upd_make up LAB=upd 2>&1) ||
    { check "$UPDATE_FROM_VERSION's make up LAB=upd ($(tail -n 1 <<<"$out"))" false; return 0; }
  out=$(APP_ARTEFACTS=soar-lab/mock-api-artefacts:update-from upd_make class-up ROSTER="$roster" 2>&1) ||
    { check "$UPDATE_FROM_VERSION's make class-up ($(tail -n 1 <<<"$out"))" false; return 0; }
  for lab in $UPDATE_LABS; do
    check "lab $lab made by $UPDATE_FROM_VERSION: a trainee's workflow published, the guide's published, a starter, a check, a save" \
      update_made "$lab"
  done

  log "update: this checkout unpacked over the trainer's folder; make status, make up, make class-up"
  update_unpack
  out=$(cd "$UPDATE_DIR" && make_lab status 2>&1) || true
  check "make status: this checkout's version ($(head -n 1 <<<"$out"))" grep -q "^this checkout: version $LAB_VERSION " <<<"$out"
  check "make status: lab upd at $UPDATE_FROM_VERSION, to be updated in place" \
    grep -q "lab upd: version $UPDATE_FROM_VERSION, this checkout $LAB_VERSION: make up LAB=upd updates it in place" <<<"$out"
  t=$SECONDS
  out=$(upd_make up LAB=upd 2>&1) || true
  UPDATE_UP_SECONDS=$((SECONDS - t))
  check "make up LAB=upd: one line, updated in place from $UPDATE_FROM_VERSION ($(grep -m 1 '^lab: updated' <<<"$out" | head -c 120))" \
    test "$(grep -c '^lab: \(updated\|moved\) ' <<<"$out")" = 1 -a -n "$(grep "^lab: updated lab upd in place from $UPDATE_FROM_VERSION to $LAB_VERSION " <<<"$out")"
  update_held upd "make up"
  t=$SECONDS
  out=$(upd_make class-up ROSTER="$roster" 2>&1) || true
  UPDATE_CLASS_SECONDS=$((SECONDS - t))
  check "make class-up: one line a lab of the class, both updated in place" \
    test "$(grep -c "^lab: updated lab up[ab] in place from $UPDATE_FROM_VERSION to $LAB_VERSION " <<<"$out")" = 2
  for lab in upa upb; do update_held "$lab" "make class-up"; done
  out=$(upd_make up LAB=upd 2>&1) || true
  check "make up again: nothing updated, the version said ($(grep -m 1 'already up' <<<"$out" | head -c 100))" \
    grep -q "already up, version $LAB_VERSION, as this checkout" <<<"$out"

  log "update: the move of another layout, on lab upd (its record set to 0.9.0), with a credential made in its n8n"
  rc=0
  update_credential || rc=$?
  check "a credential made in lab upd's n8n before the move (id $(head -c 40 "$WORK/update-credential.id" 2>/dev/null))" test "$rc" = 0
  update_move_ready
  t=$SECONDS
  out=$(upd_make up LAB=upd 2>&1) || true
  UPDATE_MOVE_SECONDS=$((SECONDS - t))
  update_moved "make up on a lab of another layout" "$out"
  for step in $UPDATE_KILLS; do
    log "update: the move cut short $(update_step_said "$step"), then make up LAB=upd again"
    update_move_ready
    rc=0
    update_killed "$step" || rc=$?
    check "the move killed $(update_step_said "$step") ($(tail -n 1 "$WORK/update-killed-$step.log" 2>/dev/null | head -c 100))" \
      test "$rc" = 0
    check "the move killed $(update_step_said "$step"): the settings file records it and its save ($(grep '^LAB_MOVE_' "$UPDATE_DIR/labs/upd.env" | paste -sd ' ' - | head -c 140))" \
      update_recorded
    out=$(cd "$UPDATE_DIR" && make_lab status 2>&1) || true
    check "make status names the unfinished move and what to run ($(grep 'lab upd:' <<<"$out" | head -c 120))" \
      grep -q "lab upd: an unfinished move from 0.9.0 to $LAB_VERSION: its workflows and credentials are saved in .*; make up LAB=upd finishes it" <<<"$out"
    out=$(upd_make up LAB=upd 2>&1) || true
    update_moved "make up after the move was killed $(update_step_said "$step")" "$out"
  done
  UPDATE_SECONDS=$((SECONDS - start))
  update_stop
}

update_step_said() {
  case "$1" in
    saved) echo "after the save" ;;
    removed) echo "after the removal" ;;
    import) echo "during the import" ;;
  esac
}

# Lab upd recorded as 0.9.0 (another layout) again, and what it holds now kept to compare with after.
update_move_ready() {
  sed -i "s/^LAB_VERSION=.*/LAB_VERSION=0.9.0/" "$UPDATE_DIR/labs/upd.env"
  update_snapshot upd before >/dev/null || true
  update_history upd | tail -n 1 >"$WORK/update-history-upd" || true
  grep -q '^{"at":"' "$WORK/update-history-upd" || check "lab upd's check history read before the move" false
}

# update_moved WHAT OUTPUT: one line, moved, its save named; then the lab held to what it was, its
# credential too.
update_moved() {
  local all published rc
  all=$(grep -c . "$WORK/update-before-upd.workflows")
  published=$(grep -c 'published":true' "$WORK/update-before-upd.workflows")
  check "$1: one line, moved, its save named, nothing updated in place ($(grep -m 1 '^lab: moved' <<<"$2" | head -c 160))" \
    test "$(grep -c '^lab: \(updated\|moved\) ' <<<"$2")" = 1 -a -n "$(grep "^lab: moved lab upd from 0.9.0 to $LAB_VERSION (another layout) in [0-9]* s: saved to .*, $all workflow(s) restored ($published published), [1-9][0-9]* credential(s)" <<<"$2")"
  update_held upd "$1"
  rc=0
  update_credential_held || rc=$?
  check "$1: lab upd's credential is there, opened by its n8n with the lab's key ($(head -c 80 "$WORK/update-credential.got" 2>/dev/null))" \
    test "$rc" = 0
  check "$1: the move's record is gone from the settings file" test -z "$(grep '^LAB_MOVE_' "$UPDATE_DIR/labs/upd.env")"
}

# n8n's editor API as lab upd's owner (its login; the lab's API key has no credential scope).
update_rest() {
  local editor body=()
  editor=http://127.0.0.1:$(upd_env upd LAB_EDITOR_PORT)
  [ "${3:-}" != - ] || body=(-H 'content-type: application/json' --data-binary @-)
  printf '{"emailOrLdapLoginId":"%s","password":"%s"}' "$(upd_env upd N8N_OWNER_EMAIL)" "$(upd_env upd N8N_OWNER_PASSWORD)" |
    in_ns curl -fsS --max-time 30 -o /dev/null -c "$WORK/update-rest-jar" -X POST "$editor/rest/login" \
      -H 'content-type: application/json' --data-binary @- || return 1
  in_ns curl -fsS --max-time 30 -b "$WORK/update-rest-jar" -X "$1" "$editor/rest$2" "${body[@]}"
}

# A trainee's credential, made in the editor's API: a header whose name is this run's own (a field n8n
# keeps encrypted and shows again, unlike the secret value it blanks).
update_credential() {
  UPDATE_HEADER=X-Trainee-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
  printf '{"name":"Trainee identity key","type":"httpHeaderAuth","data":{"name":"%s","value":"trainee-secret"}}' "$UPDATE_HEADER" |
    update_rest POST /credentials - >"$WORK/update-credential.json" || return 1
  json_get "$WORK/update-credential.json" '(r.data ?? r).id' >"$WORK/update-credential.id" && grep -q . "$WORK/update-credential.id"
}

# The credential after a move: the same id, name and (decrypted with the lab's key) header name.
update_credential_held() {
  update_rest GET "/credentials/$(cat "$WORK/update-credential.id")?includeData=true" >"$WORK/update-credential.after" || return 1
  json_get "$WORK/update-credential.after" '[(r.data ?? r).name, (r.data ?? r).data?.name].join(" ")' >"$WORK/update-credential.got" || return 1
  test "$(cat "$WORK/update-credential.got")" = "Trainee identity key $UPDATE_HEADER"
}

# update_killed STEP: make up LAB=upd in a process group of its own, killed (SIGKILL, as a power cut) at
# STEP: saved, once the settings file records the move's save; removed, once it records the old lab
# removed; import, while n8n's import of the workflows runs. Fails if the command ends before STEP.
update_killed() {
  local step=$1 pid=$WORK/update-kill.pid env=$UPDATE_DIR/labs/upd.env group="" bg i
  rm -f "$pid"
  # shellcheck disable=SC2016 # expanded by the inner shell
  (cd "$UPDATE_DIR" && lab_create_lock as_trainer timeout 900 setsid bash -c 'echo $$ >"$0"; exec make -s --no-print-directory up LAB=upd' "$pid") \
    >"$WORK/update-killed-$step.log" 2>&1 &
  bg=$!
  for ((i = 0; i < 3000; i++)); do
    [ -n "$group" ] || group=$(cat "$pid" 2>/dev/null || true)
    if [ -n "$group" ]; then
      case "$step" in
        saved) grep -qx 'LAB_MOVE_STEP=saved' "$env" && break ;;
        removed) grep -qx 'LAB_MOVE_STEP=removed' "$env" && break ;;
        import) pgrep -g "$group" -f 'import:workflow' >/dev/null && break ;;
      esac
    fi
    kill -0 "$bg" 2>/dev/null || { echo "ended before $step" >>"$WORK/update-killed-$step.log"; return 1; }
    sleep 0.2
  done
  if [ -z "$group" ] || ! kill -KILL -- "-$group" 2>/dev/null; then
    echo "not killed" >>"$WORK/update-killed-$step.log"
    return 1
  fi
  wait "$bg" 2>/dev/null || true
  echo "killed at $step" >>"$WORK/update-killed-$step.log"
}

# The move's record in the settings file: from 0.9.0, its save complete, the version not yet recorded.
update_recorded() {
  local save
  save=$(upd_env upd LAB_MOVE_SAVE)
  test "$(upd_env upd LAB_MOVE_FROM)" = 0.9.0 && test -f "$save/index.json" && test "$(upd_env upd LAB_VERSION)" = 0.9.0
}

update_stop() {
  local lab
  [ -f "$UPDATE_DIR/docker/lab.sh" ] || return 0
  for lab in $UPDATE_LABS; do
    [ -f "$UPDATE_DIR/labs/$lab.env" ] || continue
    LAB=$lab LAB_FORCE_DOWN=1 timeout 300 bash "$UPDATE_DIR/docker/lab.sh" down >/dev/null 2>&1 || true
  done
}
