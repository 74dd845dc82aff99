# shellcheck shell=bash
# A lab's life: prepare (settings, refusals, secrets), start, up (ready and set up), reset, solution, down,
# and what it prints about where things are.

# Settings, a slot for a new named lab, the refusals and the settings file; nothing is started.
cmd_prepare() {
  local slot=0
  need_docker
  if lab_exists; then
    load_settings
    same_settings_as_running
    return 0
  fi
  load_settings
  if [ -n "$LAB" ] && [ ! -f "$ENV_FILE" ]; then
    slot=$(free_slot) || exit 1
    load_settings "$slot"
  fi
  preflight
  ensure_env_file
}

# Creates and starts the containers without waiting (a class starts all its labs before waiting).
cmd_start() {
  need_docker
  load_settings
  if [ -n "${LAB_BUNDLE:-}" ]; then
    load_bundle
  elif [ -z "${LAB_SKIP_BUILD:-}" ]; then
    compose build -q mock-api || die "could not build the lab's image (docker compose build mock-api)"
  fi
  compose up -d --no-recreate --remove-orphans --quiet-pull 2>/dev/null ||
    compose up -d --no-recreate --remove-orphans
}

cmd_up() {
  local start=$SECONDS
  need_docker
  if lab_exists; then
    load_settings
    same_settings_as_running
    if lab_is_up && [ -n "$(env_value N8N_API_KEY)" ]; then
      say "$(lab_title) is already up; nothing changed (make down$LAB_ARG, then make up$LAB_ARG, starts afresh)"
      where_things_are
      return 0
    fi
    say "some services of $(lab_title) are not up yet; starting what is missing (nothing that runs is recreated)"
  else
    cmd_prepare
  fi
  cmd_start
  compose_up_wait
  n8n_setup
  if [ "$LAB_MODE" = demo ]; then publish_solution; fi
  echo
  echo "Up: $(lab_title), $(since "$start") s from make up to ready."
  where_things_are
}

cmd_down() {
  local start=$SECONDS
  need_docker
  local out
  out=$(compose down --volumes --remove-orphans --timeout 10 2>&1) || { echo "$out" >&2; die "could not remove $(lab_title)"; }
  rm -f "$ENV_FILE"
  say "removed $(lab_title): containers, networks, volumes (its workflows too) and ${ENV_FILE#"$LAB_DIR"/} in $(since "$start") s; reports/ is kept; the next make up$LAB_ARG makes a new password"
}

# A clean exercise: unfinished runs stopped, the destination systems cleared; the workflows stay.
cmd_reset() {
  need_running_lab
  stop_unfinished_runs
  api POST /reset '{}'
}

cmd_solution() {
  need_running_lab
  publish_solution
}

api() { compose exec -T mock-api node dist/app/cli/api-request.js "$@"; }

where_things_are() {
  local secret mode
  secret=$(env_value CONSOLE_SECRET)
  [ -z "$secret" ] || secret="
               it asks for the secret of this lab: $secret"
  if [ "$LAB_MODE" = demo ]; then
    mode="demo: the reference workflows are published"
  else
    mode="exercise: nothing is published; build your workflow in the editor (docs/trainee-guide.md)"
  fi
  cat <<TEXT
  mode:        $mode
  n8n editor:  $EDITOR_URL   login $(env_value N8N_OWNER_EMAIL)   password $(env_value N8N_OWNER_PASSWORD)
  webhook:     POST $EDITOR_URL/webhook/suspicious-login   once your workflow is published (the editor's
               test URL, /webhook-test/..., listens only while the editor waits for a test event)
  console:     $CONSOLE_URL   send alerts, approve, watch the destination systems, the last check$secret
  approval:    a run waits up to $APPROVAL_TIMEOUT_SECONDS s for a decision (APPROVAL_TIMEOUT_SECONDS), then goes on without one
  check:       make check$LAB_ARG STAGE=webhook   then validate, enrich, case-lookup, decide, approve, block,
               record, idempotency, connector-failure, rollback, or all
  reset:       make reset$LAB_ARG   between exercises: stops unfinished runs, clears the destination systems, keeps workflows
  reference:   make solution$LAB_ARG   publishes the reference workflows on this lab
  remove:      make down$LAB_ARG   everything, workflows too; the next make up makes a new password
TEXT
}

# One line of the class roster: the trainee's URLs and login, and how to reach them from another machine.
where_short() {
  local secret
  need_running_lab
  secret=$(env_value CONSOLE_SECRET)
  printf '%s  editor %s  console %s  login %s  password %s' "$LAB" "$EDITOR_URL" "$CONSOLE_URL" \
    "$(env_value N8N_OWNER_EMAIL)" "$(env_value N8N_OWNER_PASSWORD)"
  if [ -n "$secret" ]; then
    printf '  console secret %s\n' "$secret"
  else
    printf '  from another machine: ssh -N -L %s:127.0.0.1:%s -L %s:127.0.0.1:%s <you>@<this machine>\n' \
      "$LAB_EDITOR_PORT" "$LAB_EDITOR_PORT" "$LAB_CONSOLE_PORT" "$LAB_CONSOLE_PORT"
  fi
}
