# shellcheck shell=bash
# Update in place: a lab made by an earlier version of the appliance, brought to this checkout's by
# `make up` (or `make start`, `make class-up`) after a `git pull` or a newer release unpacked over the
# old one. A lab records its version in its settings file (LAB_VERSION); a lab with no record was made by
# 1.0.0, the last version that kept none. What the version's parts mean (app/lab-settings/settings.ts,
# CHANGELOG.md):
#   the same version         nothing to do;
#   an older one, same MAJOR the lab's layout is the same: the containers whose image or settings changed
#                            are recreated in place, the volumes (workflows, login, checks) kept;
#   an older MAJOR           another layout: saved (workflows, credentials and check reports, to the
#                            host), removed but for its settings file (secrets, login, ports, and the
#                            key its credentials are encrypted with), made anew, then its workflows and
#                            credentials restored (published ones published) and its reports put back;
#   a newer one              refused: this checkout cannot know that layout; nothing changed.
# Every step that can fail before anything is removed (the engine, the image build, the save, the
# reports) fails with nothing changed and says why. One line a lab says what was done.
# A move is recorded in the lab's settings file before anything is removed (LAB_MOVE_FROM, the version it
# moves from; LAB_MOVE_SAVE, its save; LAB_MOVE_STEP, saved or removed) and its version only once the lab
# is whole again: a move cut short (Ctrl-C, a power cut, a failed import) is finished by the next make up,
# make start or make class-up, from its save; make status says so.

# A lab with no record: 1.0.0 when its services are 1.0.0's, else 0.9.0, the name CHANGELOG.md gives the
# layouts before it (queue mode with Redis and a worker; no walls), which a move takes on.
UNRECORDED_VERSION=1.0.0 UNRECORDED_SERVICES="console mock-api n8n postgres walls" OLDER_LAYOUT_VERSION=0.9.0

# The version a lab records (its settings file), or the one that recorded none.
lab_version() {
  local v services
  v=$(env_value LAB_VERSION || true)
  if [ -z "$v" ]; then
    services=$(compose ps -a --format '{{.Service}}' 2>/dev/null | LC_ALL=C sort -u | paste -sd ' ' -)
    v=$UNRECORDED_VERSION
    [ -z "$services" ] || [ "$services" = "$UNRECORDED_SERVICES" ] || v=$OLDER_LAYOUT_VERSION
  fi
  echo "$v"
}

# update_way VERSION: what this checkout does with a lab of VERSION: same, update, move or newer.
update_way() {
  local older
  [ "$1" != "$LAB_VERSION" ] || { echo same; return 0; }
  older=$(printf '%s\n%s\n' "$1" "$LAB_VERSION" | LC_ALL=C sort -V | head -n 1)
  if [ "$older" != "$1" ]; then
    echo newer
  elif [ "${1%%.*}" = "${LAB_VERSION%%.*}" ]; then
    echo update
  else
    echo move
  fi
}

# Whether a move of the lab was cut short (its record in the settings file).
move_pending() { [ -n "$(env_value LAB_MOVE_SAVE || true)" ]; }

# A lab's version beside this checkout's, for make status and make up on a running lab.
version_line() {
  local was way
  if move_pending; then
    echo "an unfinished move from $(env_value LAB_MOVE_FROM) to $LAB_VERSION: its workflows and credentials are saved in $(shown_path "$(env_value LAB_MOVE_SAVE)")/; make up$LAB_ARG finishes it"
    return 0
  fi
  was=$(lab_version)
  way=$(update_way "$was")
  case "$way" in
    same) echo "version $was, as this checkout" ;;
    update) echo "version $was, this checkout $LAB_VERSION: make up$LAB_ARG updates it in place (its containers recreated, everything kept)" ;;
    move) echo "version $was, this checkout $LAB_VERSION (another layout): make up$LAB_ARG moves it (saved, made anew, restored)" ;;
    newer) echo "version $was, newer than this checkout's $LAB_VERSION: use a checkout of $was for it" ;;
  esac
}

# Before make up or make start on an existing lab (its settings loaded): brings it to this version, or
# dies with nothing changed. Sets UPDATED (the version it had) and, for a move, MOVED_SAVE (the save the
# caller restores once the new lab is set up: finish_move).
UPDATED="" MOVED_SAVE=""
update_if_older() {
  local was
  if move_pending; then
    resume_move
    return 0
  fi
  was=$(lab_version)
  case "$(update_way "$was")" in
    same) return 0 ;;
    newer)
      die "$(lab_title) runs version $was, newer than this checkout's $LAB_VERSION: nothing changed; run its commands from a checkout of $was (CHANGELOG.md)" ;;
    update) update_in_place "$was" ;;
    move) move_out "$was" ;;
  esac
  UPDATED=$was
}

# The lab's images for this version, built (or, offline, loaded from LAB_BUNDLE) before anything of the
# lab is touched.
build_for_update() {
  local out
  [ -z "${LAB_SKIP_BUILD:-}" ] || return 0
  if [ -n "${LAB_BUNDLE:-}" ]; then
    out=$(load_bundle 2>&1) ||
      die_with "$(tool_lines "$out")" "nothing changed: $(lab_title) stays at $1; the images of $LAB_VERSION could not be loaded ($(first_said "$out"))"
  else
    out=$(compose build -q mock-api 2>&1) ||
      die_with "$out" "nothing changed: $(lab_title) stays at $1; the image of $LAB_VERSION could not be built (docker compose build mock-api)"
  fi
  LAB_SKIP_BUILD=1
}

# Same layout: the containers whose image or settings changed are recreated (compose's own comparison);
# the volumes stay. A failure here leaves the volumes (everything a trainee made) as they were.
update_in_place() {
  local was=$1 start=$SECONDS out
  build_for_update "$was"
  out=$(compose up -d --remove-orphans --wait --wait-timeout "${LAB_HEALTH_TIMEOUT:-300}" 2>&1) ||
    die_with "$out" "$(lab_title) did not come up healthy on $LAB_VERSION (from $was); its volumes, with every workflow and check, are kept: make logs$LAB_ARG, then make up$LAB_ARG again"
  set_env_value LAB_VERSION "$LAB_VERSION"
  say "updated $(lab_title) in place from $was to $LAB_VERSION in $(since "$start") s: its containers recreated on the new images; workflows, login, console secret, checks and addresses kept"
}

# Another layout, first half: saved, then removed but for its settings file. Nothing is removed unless
# the save and the reports both succeeded.
move_out() {
  local was=$1 saved out vol
  build_for_update "$was"
  saved=$(lab_save update 2>&1) ||
    die_with "$(tool_lines "$saved")" "nothing changed: $(lab_title) stays at $was; its workflows could not be saved before the move to $LAB_VERSION ($(first_said "$saved"))"
  MOVED_SAVE=${saved##*$'\n'}
  out=$(keep_reports 2>&1) ||
    die_with "$(tool_lines "$out")" "nothing changed: $(lab_title) stays at $was; its check reports could not be kept before the move ($(first_said "$out")); its workflows are saved in $(shown_path "$MOVED_SAVE")/"
  # Recorded before anything is removed: whatever stops the move from here, the next command finishes it.
  set_env_value LAB_MOVE_FROM "$was"
  set_env_value LAB_MOVE_STEP saved
  set_env_value LAB_MOVE_SAVE "$MOVED_SAVE"
  remove_old_layout "$was"
}

# The old layout removed but for its settings file; then the record says so.
remove_old_layout() {
  local out vol
  [ -z "$LAB" ] || board_release "$LAB"
  out=$(compose down --volumes --remove-orphans --timeout 10 2>&1) ||
    die_with "$out" "could not remove $(lab_title)'s $1 containers for the move; its workflows and credentials are saved in $(shown_path "$MOVED_SAVE")/ (make up$LAB_ARG tries again)"
  # Volumes of the old layout that this checkout's compose.yaml no longer names.
  for vol in $(docker volume ls -q --filter "label=com.docker.compose.project=$PROJECT"); do
    docker volume rm "$vol" >/dev/null 2>&1 || true
  done
  set_env_value LAB_MOVE_STEP removed
  MOVE_START=$SECONDS
}

# A move cut short, taken up where it stopped. Before the removal (the old lab, or its database, still
# there): saved again, so that nothing made since is lost, then removed; after it: the new lab is made (by
# the caller) and the recorded save restored into it (an import again is harmless: ids are kept).
resume_move() {
  local from save
  from=$(env_value LAB_MOVE_FROM)
  save=$(env_value LAB_MOVE_SAVE)
  [ -f "$save/index.json" ] ||
    die "$(lab_title)'s move from $from was cut short and its save $(shown_path "$save")/ is gone: nothing changed; make restore$LAB_ARG FROM=<a save in $(shown_path "$(save_dir_of_lab)")/> brings back another"
  say "$(lab_title)'s move from $from to $LAB_VERSION was cut short: finishing it from its save $(shown_path "$save")/"
  MOVED_SAVE=$save
  if [ "$(env_value LAB_MOVE_STEP)" != removed ]; then
    if lab_has_data; then
      move_out "$from"
    else
      remove_old_layout "$from"
    fi
  fi
  MOVE_START=${MOVE_START:-$SECONDS}
  UPDATED=$from
}

# Another layout, second half (the new lab up and set up): the saved credentials and workflows imported,
# the published ones published again, the check reports put back into its reports volume; then its
# version recorded and the move's record removed. Any failure leaves the record: make up finishes it.
finish_move() {
  local from=$MOVED_SAVE all published out file credentials
  mapfile -t all < <(save_ids "$from")
  mapfile -t published < <(save_ids "$from" published)
  credentials=$(save_credentials "$from")
  if [ "$credentials" -gt 0 ]; then
    out=$(import_credentials "$from" 2>&1) ||
      die_with "$out" "$(lab_title) is up on $LAB_VERSION but its credentials did not come back (saved in $(shown_path "$from")/): make up$LAB_ARG finishes the move"
  fi
  if [ "${#all[@]}" -gt 0 ]; then
    out=$(import_save "$from" 2>&1) ||
      die_with "$out" "$(lab_title) is up on $LAB_VERSION but its workflows did not come back (saved in $(shown_path "$from")/): make up$LAB_ARG finishes the move"
  fi
  if [ "${#published[@]}" -gt 0 ]; then
    out=$(tools_run "${N8N_CLI[@]}" republish "${published[@]}" 2>&1) ||
      die_with "$out" "$(lab_title)'s workflows are back, unpublished; publishing them again failed: ${out##*$'\n'}"
  fi
  for file in "$REPORT_FILE" "$HISTORY_FILE" "$RUNS_FILE"; do
    [ -f "$REPORTS/$file" ] || continue
    out=$(put_report "$REPORTS/$file" "$file" 2>&1) ||
      die_with "$out" "$(lab_title)'s workflows are back; its $file could not be put back into the lab (the host keeps it in ${REPORTS#"$ROOT"/}/)"
  done
  set_env_value LAB_VERSION "$LAB_VERSION"
  unset_env_values LAB_MOVE_SAVE LAB_MOVE_STEP LAB_MOVE_FROM
  say "moved $(lab_title) from $UPDATED to $LAB_VERSION (another layout) in $(since "$MOVE_START") s: saved to $(shown_path "$from")/, made anew, ${#all[@]} workflow(s) restored (${#published[@]} published), $credentials credential(s), checks put back; login, console secret and addresses kept"
}

# put_report HOST_FILE NAME: a host file into the lab's reports volume, as the console's user writes it.
put_report() {
  docker run --rm -i --network none --read-only --cap-drop ALL --security-opt no-new-privileges --user 1000:1000 \
    --mount "type=volume,source=${PROJECT}_lab-reports,target=/reports" "$REPORTS_IMAGE" \
    node -e 'require("fs").writeFileSync(process.argv[1], require("fs").readFileSync(0))' "/reports/$2" <"$1"
}

# make status: this checkout's version, and each lab of it with its version, its state and what make up
# would do with it.
cmd_status() {
  local f name
  need_docker
  echo "this checkout: version $LAB_VERSION (CHANGELOG.md says what each version changed)"
  for f in "$LAB_DIR/.env" "$LAB_DIR"/labs/*.env; do
    [ -f "$f" ] || continue
    name=$(basename "$f" .env)
    [ "$f" != "$LAB_DIR/.env" ] || name=""
    LAB=$name bash "$ROOT/docker/lab.sh" status-line || true
  done
}

status_line() {
  local running all state
  load_settings
  running=$(compose ps -q 2>/dev/null | grep -c . || true)
  all=$(compose ps -a -q 2>/dev/null | grep -c . || true)
  if [ "$all" = 0 ]; then state="no containers"
  elif [ "$running" = 0 ]; then state="stopped"
  else state="$running of $all containers running"; fi
  echo "  $(lab_title): $(version_line); $state"
}
