# shellcheck shell=bash
# The trainee guide's editor screenshots, written by this test from the lab's own editor (part of
# test/lab/run.sh, on the fresh exercise lab before the trainee starts): in Chromium, the guide's own
# workflow (docker/workflows/suspicious-login-response.json: the workflow the guide builds, which make
# solution publishes) pasted onto an empty lab's overview, named as the guide says, saved and published
# with the editor's controls; the Wait node's whole panel; one alert for the Executions tab, zoomed to the
# run's first nodes; the canvas of a stage being built (the guide's workflow after stage 3,
# docker/workflows/stages/, every node readable); the guide's Connector failure stage
# (test/editor/connector-failure.json) for Record's error output and the retry loop. The images go to
# LAB_GUIDE_SHOTS (default docs/img, the guide's own); then every workflow is unpublished and deleted
# through n8n's API and `make reset` stops the alert's run, so the trainee starts on an empty lab.

# shellcheck source=../editor/shots.sh
. test/editor/shots.sh
# shellcheck source=../editor/views.sh
. test/editor/views.sh

GUIDE_NAME='Suspicious Login Response'

lab_workflow_ids() { n8n_api GET /workflows | node -e 'JSON.parse(require("fs").readFileSync(0,"utf8")).data.forEach((w)=>console.log(w.id))'; }

# guide_amount: the Amount the guide gives the Wait node (its row for Wait for approval), `{{ ... }}`.
guide_amount() {
  # shellcheck disable=SC2016 # the backticks are Markdown's, matched as text
  grep -m1 '^| \*\*Wait for approval\*\*' docs/trainee-guide.md | grep -o '\*Amount\* `{{[^`]*}}`' |
    sed 's/^\*Amount\* .//; s/.$//'
}

GUIDE_WORKFLOW=docker/workflows/suspicious-login-response.json
# The stage being built on the canvas screenshot: the guide's workflow after stage 3 (its eight nodes).
GUIDE_STAGE=${LAB_GUIDE_STAGE:-docker/workflows/stages/stage-03-enrich.json}

# guide_wait_amount_is AMOUNT: the guide's workflow gives Wait for approval the Amount the guide's table
# shows (the screenshot is of the workflow the guide builds).
guide_wait_amount_is() {
  node -e '
    const w = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const wait = w.nodes.find((n) => n.name === "Wait for approval");
    const amount = wait && wait.parameters.resumeAmount;
    if (amount !== "=" + process.argv[2]) { console.log("the guide workflow'"'"'s Amount is " + amount); process.exit(1); }
  ' "$GUIDE_WORKFLOW" "$1"
}

# editor_unresolved: what the editor showed under the Wait node's Amount, `[ERROR: ...]`, as the driver
# said it; guide_quotes_editor: the guide says the same, word for word (its lines joined).
editor_unresolved() { sed -n 's/^Wait node in the editor: //p' "$WORK/guide-shots.log"; }
guide_quotes_editor() {
  local said
  said=$(editor_unresolved)
  [ -n "$said" ] && tr '\n' ' ' <docs/trainee-guide.md | tr -s ' ' | grep -qF "*$said*"
}

guide_editor() {
  TRAINEE_EMAIL=$(env_of "$ENV_FILE" N8N_OWNER_EMAIL) TRAINEE_PASSWORD=$(env_of "$ENV_FILE" N8N_OWNER_PASSWORD) \
    FAILURE_SHOT="$WORK/guide-shots-failure.png" in_ns timeout 600 npx tsx test/editor/trainee-editor.ts \
    --n8n "$EDITOR" --workflow "$GUIDE_WORKFLOW" --name "$GUIDE_NAME" --canvas "$GUIDE_STAGE" \
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
  local shots=${LAB_GUIDE_SHOTS:-$ROOT/docs/img} since="$WORK/guide-shots.since" started=$SECONDS
  touch "$since"
  sleep 1 # a file written in this run is newer by at least a second
  check "the lab's editor is empty (the overview a trainee first meets)" test -z "$(lab_workflow_ids)"
  check "the guide's workflow for the screenshots, its Wait node with the guide's Amount ($(guide_amount))" \
    guide_wait_amount_is "$(guide_amount)"
  check "the guide's screenshots from the lab's editor: the guide's workflow pasted, named \"$GUIDE_NAME\", saved and published; one alert; stage 3 being built; the Connector failure example ($(basename "$shots"))" \
    guide_editor "$shots"
  check "... the editor's pages written, 1280x800: ${EDITOR_PAGES[*]}" editor_pages_ok "$shots"
  check "... the Wait node's whole panel: ${EDITOR_PANELS[*]}" editor_panels_ok "$shots"
  check "... the canvas: stage 3 being built, every node in view and readable ($(views_said canvas "$WORK/guide-shots.log"))" \
    canvas_view_ok "$WORK/guide-shots.log" "$GUIDE_STAGE"
  check "... Executions: the run zoomed to its first nodes, their item counts read ($(views_said Executions "$WORK/guide-shots.log"))" \
    executions_view_ok "$WORK/guide-shots.log"
  check "... the Wait node's panel holds every parameter down to Unit ($(views_said "Wait node's panel" "$WORK/guide-shots.log"))" \
    wait_view_ok "$WORK/guide-shots.log"
  check "... the crops of the Connector failure example: ${EDITOR_CROPS[*]}" editor_crops_ok "$shots"
  check "the guide quotes what the editor shows under the Wait node's \$env Amount ($(editor_unresolved))" \
    guide_quotes_editor
  check "every editor screenshot the trainee guide shows was written by this run ($(guide_editor_images docs/trainee-guide.md | wc -l))" \
    guide_shots_written docs/trainee-guide.md "$shots" "$since"
  check "the pass's workflows unpublished and deleted, its run stopped by make reset: the editor is empty again" guide_workflows_gone
  check "... and the webhook path answers 404" test "$(http_code POST "$WEBHOOK" '{}')" = 404
  GUIDE_SHOTS_SECONDS=$((SECONDS - started))
}
