# shellcheck shell=bash
# The trainee guide's editor screenshots, written by this test from the lab's own editor (part of
# test/lab/run.sh, on the fresh exercise lab before the trainee starts): in Chromium, the reference
# workflow pasted onto an empty lab's overview, named as the guide says, saved and published with the
# editor's controls; one alert for the Executions tab; the guide's Connector failure stage
# (test/editor/connector-failure.json) for Record's error output and the retry loop. The images go to
# LAB_GUIDE_SHOTS (default docs/img, the guide's own); then both workflows are unpublished and deleted
# through n8n's API and `make reset` stops the alert's run, so the trainee starts on an empty lab.

# shellcheck source=../editor/shots.sh
. test/editor/shots.sh

GUIDE_NAME='Suspicious Login Response'

# n8n_api METHOD PATH: n8n's public API with the lab's key, from the engine's namespace; the body out.
n8n_api() { in_ns curl -fsS -X "$1" "$EDITOR/api/v1$2" -H "x-n8n-api-key: $(env_of "$ENV_FILE" N8N_API_KEY)"; }
lab_workflow_ids() { n8n_api GET /workflows | node -e 'JSON.parse(require("fs").readFileSync(0,"utf8")).data.forEach((w)=>console.log(w.id))'; }

guide_editor() {
  TRAINEE_EMAIL=$(env_of "$ENV_FILE" N8N_OWNER_EMAIL) TRAINEE_PASSWORD=$(env_of "$ENV_FILE" N8N_OWNER_PASSWORD) \
    FAILURE_SHOT="$WORK/guide-shots-failure.png" in_ns timeout 600 npx tsx test/editor/trainee-editor.ts \
    --n8n "$EDITOR" --workflow docker/workflows/suspicious-login-response.json --name "$GUIDE_NAME" \
    --shots "$1" --alert test/editor/alert.json --example test/editor/connector-failure.json >"$WORK/guide-shots.log" 2>&1 ||
    { tail -n 5 "$WORK/guide-shots.log"; return 1; }
}

# guide_workflows_gone: every workflow the pass made unpublished, then deleted (n8n's API deletes only an
# unpublished one); the lab's editor is empty again.
guide_workflows_gone() {
  local id
  for id in $(lab_workflow_ids); do n8n_api POST "/workflows/$id/deactivate" >/dev/null || return 1; done
  make_lab reset >"$WORK/guide-reset.log" 2>&1 || { cat "$WORK/guide-reset.log"; return 1; }
  for id in $(lab_workflow_ids); do n8n_api DELETE "/workflows/$id" >/dev/null || return 1; done
  [ -z "$(lab_workflow_ids)" ]
}

exercise_guide_shots() {
  log "the trainee guide's screenshots, from the lab's editor in Chromium"
  local shots=${LAB_GUIDE_SHOTS:-$ROOT/docs/img} since="$WORK/guide-shots.since"
  touch "$since"
  sleep 1 # a file written in this run is newer by at least a second
  check "the lab's editor is empty (the overview a trainee first meets)" test -z "$(lab_workflow_ids)"
  check "the guide's screenshots from the lab's editor: the reference pasted, named \"$GUIDE_NAME\", saved and published; one alert; the Connector failure example ($(basename "$shots"))" \
    guide_editor "$shots"
  check "... the editor's pages written, 1280x800: ${EDITOR_PAGES[*]}" editor_pages_ok "$shots"
  check "... the crops of the Connector failure example: ${EDITOR_CROPS[*]}" editor_crops_ok "$shots"
  check "every editor screenshot the trainee guide shows was written by this run ($(guide_editor_images docs/trainee-guide.md | wc -l))" \
    guide_shots_written docs/trainee-guide.md "$shots" "$since"
  check "the pass's workflows unpublished and deleted, its run stopped by make reset: the editor is empty again" guide_workflows_gone
  check "... and the webhook path answers 404" test "$(http_code POST "$WEBHOOK" '{}')" = 404
}
