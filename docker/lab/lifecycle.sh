# shellcheck shell=bash
# A lab's life: prepare (settings, refusals, secrets), create, up (ready and set up), reset, solution, down
# (saved first: docker/lab/keep.sh), and what it prints about where things are.

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
cmd_create() {
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
  # A lab whose move was cut short may have no containers: it is finished, never made afresh.
  if lab_exists || move_pending; then
    load_settings
    same_settings_as_running
    # A lab of an earlier version is brought to this one first (docker/lab/update.sh).
    update_if_older
    if [ -z "$UPDATED" ] && lab_is_up && [ -n "$(env_value N8N_API_KEY)" ]; then
      say "$(lab_title) is already up, $(version_line); nothing changed (make down$LAB_ARG, then make up$LAB_ARG, starts afresh)"
      where_things_are
      return 0
    fi
    [ -n "$UPDATED" ] ||
      say "some services of $(lab_title) are not up; starting what is stopped or missing (its workflows are kept; nothing that runs is recreated)"
  else
    cmd_prepare
  fi
  cmd_create
  compose_up_wait
  n8n_setup
  [ -z "$MOVED_SAVE" ] || finish_move
  if [ "$LAB_MODE" = demo ] && [ -z "$UPDATED" ]; then publish_solution; fi
  echo
  echo "Up: $(lab_title), version $LAB_VERSION, $(since "$start") s from make up to ready."
  where_things_are
}

# Saves the workflows first, always, and keeps the lab's check reports on the host (reports/, each class
# lab's in reports/<lab>/); when either fails nothing is removed (LAB_FORCE_DOWN=1 removes all the same).
cmd_down() {
  local start=$SECONDS out saved="" kept why detail
  refuse_force
  need_docker
  # A move cut short: its save holds the trainee's work, and only this lab's settings file (removed
  # below) opens its credentials.
  if move_pending && [ "${LAB_FORCE_DOWN:-}" != 1 ]; then
    die "nothing was removed: $(lab_title)'s move to $LAB_VERSION was cut short and its work is in $(shown_path "$(env_value LAB_MOVE_SAVE)")/: make up$LAB_ARG finishes it first; to remove it anyway: make down$LAB_ARG LAB_FORCE_DOWN=1"
  fi
  if lab_has_data; then
    load_settings
    if ! saved=$(lab_save down 2>&1); then
      why=$(first_said "$saved")
      detail=$(tool_lines "$saved")
      saved=""
      [ "${LAB_FORCE_DOWN:-}" = 1 ] ||
        die_with "$detail" "nothing was removed: $(lab_title)'s workflows could not be saved ($why); to remove it anyway, losing them: make down$LAB_ARG LAB_FORCE_DOWN=1"
      say "LAB_FORCE_DOWN=1: removing $(lab_title) without a save ($why)"
      tool_output "$detail"
    fi
    saved=${saved##*$'\n'}
  fi
  if ! out=$(keep_reports 2>&1); then
    why=$(first_said "$out")
    detail=$(tool_lines "$out")
    [ "${LAB_FORCE_DOWN:-}" = 1 ] ||
      die_with "$detail" "nothing was removed: $(lab_title)'s check reports could not be kept in ${REPORTS#"$ROOT"/}/ ($why); to remove it anyway, losing them: make down$LAB_ARG LAB_FORCE_DOWN=1"
    say "LAB_FORCE_DOWN=1: removing $(lab_title) without its check reports ($why)"
    tool_output "$detail"
  fi
  # A running class board holds the lab's reports volume: it lets go of it first.
  [ -z "$LAB" ] || board_release "$LAB"
  out=$(compose down --volumes --remove-orphans --timeout 10 2>&1) || die_with "$out" "could not remove $(lab_title)"
  rm -f "$ENV_FILE"
  kept="nothing to save"
  [ -z "$saved" ] || kept="its workflows saved to $(shown_path "$saved")/ ($(save_summary "$saved")): make restore$LAB_ARG brings them back into a new lab"
  say "removed $(lab_title) in $(since "$start") s, $kept; its checks are kept in ${REPORTS#"$ROOT"/}/; the next make up$LAB_ARG is a fresh exercise with a new password"
}

# FORCE is a name other tools use too: one left in the environment must never remove a lab whose save
# failed. The override has a name of its own, LAB_FORCE_DOWN=1.
refuse_force() {
  [ -z "${FORCE:-}" ] ||
    die "FORCE=$FORCE is not read: the override that removes a lab whose save failed is LAB_FORCE_DOWN=1; unset FORCE and retry"
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

api() { compose exec -T mock-api node dist/app/mock-api-client/api-request-cli.js "$@"; }

where_things_are() {
  local secret mode console=$CONSOLE_URL
  # The stages, in order (LAB_STAGES): written from app/stages, the one declaration.
  # shellcheck source=stages.generated.sh
  . "$ROOT/docker/lab/stages.generated.sh"
  secret=$(env_value CONSOLE_SECRET)
  if [ -n "$secret" ]; then
    console="$(console_link "$secret")
               (this link signs in once; the console asks anyone else for the secret $secret)"
  fi
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
  console:     $console
               send alerts, approve, watch the destination systems, the last check
  approval:    a run waits up to $APPROVAL_TIMEOUT_SECONDS s for a decision (APPROVAL_TIMEOUT_SECONDS), then goes on without one
  check:       make check$LAB_ARG STAGE=${LAB_STAGES[0]}   then $(stages_after_first)
  reset:       make reset$LAB_ARG   between exercises: stops unfinished runs, clears the destination systems, keeps workflows
  reference:   make solution$LAB_ARG   publishes the reference workflows on this lab
  keep:        make stop$LAB_ARG / make start$LAB_ARG   for the night, everything kept; make save$LAB_ARG, make restore$LAB_ARG
  remove:      make down$LAB_ARG   saves the workflows to $(shown_path "$(save_dir_of_lab)")/, then removes the lab
TEXT
  [ "${LAB_SCHEME:-http}" != https ] || echo "  tls:         $(tls_roster_lines "$LAB_BIND" | sed 's/^# //')"
}

# The stages after the first, in order, then "or all": wrapped under where_things_are's second column.
stages_after_first() {
  { printf '%s, ' "${LAB_STAGES[@]:1}"; echo 'or all'; } | fold -s -w 60 | sed 's/ *$//; 2,$s/^/               /'
}

# The console's sign-in link: the secret in the fragment, which a browser never sends, so that no server
# or proxy log holds it; the login page's script reads it, takes it out of the address bar and signs in.
console_link() { echo "$CONSOLE_URL/login#secret=$1"; }

# One line of the class roster: the trainee's URLs and login, and how to reach them from another machine.
where_short() {
  local secret console
  need_running_lab
  console=$CONSOLE_URL
  secret=$(env_value CONSOLE_SECRET)
  [ -z "$secret" ] || console=$(console_link "$secret")
  printf '%s  editor %s  console %s  login %s  password %s' "$LAB" "$EDITOR_URL" "$console" \
    "$(env_value N8N_OWNER_EMAIL)" "$(env_value N8N_OWNER_PASSWORD)"
  if [ "$LAB_BIND" = 127.0.0.1 ]; then
    printf '  from another machine: ssh -N -L %s:127.0.0.1:%s -L %s:127.0.0.1:%s %s@<this machine>\n' \
      "$LAB_EDITOR_PORT" "$LAB_EDITOR_PORT" "$LAB_CONSOLE_PORT" "$LAB_CONSOLE_PORT" "$LAB"
  else
    echo
  fi
}

# sshd settings for a trainee's host account (named like the lab): their own two tunnels and nothing else.
sshd_settings() {
  need_running_lab
  sshd_block "$LAB" "$LAB_EDITOR_PORT" "$LAB_CONSOLE_PORT"
}

# sshd_block ACCOUNT EDITOR_PORT CONSOLE_PORT: the Match block (test/appliance/sshd-settings.test.ts runs
# it through a real sshd -T).
sshd_block() {
  local tunnels="ssh -N -L $2:127.0.0.1:$2 -L $3:127.0.0.1:$3 $1@<this machine>"
  cat <<TEXT
# make roster: the host account $1 may open two tunnels, to its lab's editor and console, and nothing else
# (no shell, no terminal, no other port, no listening port). Paste at the end of /etc/ssh/sshd_config
# (a Match block runs to the end of the file or the next Match), then: sudo sshd -t && sudo systemctl
# reload ssh. The account must not be in the docker group (docs/trainer-guide.md).
Match User $1
    AllowTcpForwarding local
    PermitOpen 127.0.0.1:$2 127.0.0.1:$3
    PermitListen none
    AllowStreamLocalForwarding no
    AllowAgentForwarding no
    X11Forwarding no
    PermitTunnel no
    GatewayPorts no
    PermitTTY no
    ForceCommand /bin/echo "This account only forwards its lab's editor and console: $tunnels"
TEXT
}
