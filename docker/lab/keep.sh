# shellcheck shell=bash
# Nothing a trainee builds is lost: save, restore, stop and start.
#
# A save is n8n's own export (`n8n export:workflow --backup`: one JSON file a workflow, published or not,
# with its id, nodes, connections, settings and pinned data; `n8n export:credentials --backup`: one a
# credential, encrypted with the lab's own key as n8n holds it, which only that lab's settings file can
# open: a move brings them back, docker/lab/update.sh) made by the lab's n8n image in a one-off
# container of the lab's n8n service (its database and key; the running editor is not touched, and a stopped
# lab's database is started for it), streamed out as a tar archive and written, with an index, to
# saved/<lab>/<UTC time>/ (the single lab: saved/_default/), readable by the trainer only. LAB_SAVE_DIR
# puts saves elsewhere. Each save has a folder of its own (a suffix -02, -03... when a second one ends in
# the same second, so that names sort in time order); one save of a lab runs at a time (a lock in its
# saves folder); only the folders a save makes are made private (a LAB_SAVE_DIR that was there keeps its
# mode). A restore saves the lab first (what the editor holds a moment before is never lost), then is
# n8n's own import of a save into the running lab (ids kept, so twice makes no duplicate), then the
# workflows the save records as published published again through n8n's API (app/n8n/restore.ts).

save_root() { echo "${LAB_SAVE_DIR:-$LAB_DIR/saved}"; }
save_dir_of_lab() { echo "$(save_root)/${LAB:-_default}"; }
shown_path() { local p=$1; echo "${p#"$LAB_DIR"/}"; }

# Inside the one-off n8n container: the export and its index (with the image's own node), as a tar stream
# on stdout. An n8n with no workflow says so and exits non-zero: that is an empty save, not a failure.
# shellcheck disable=SC2016 # expanded by the container's shell
SAVE_SCRIPT='set -eu
d=$(mktemp -d)
mkdir "$d/workflows"
if ! n8n export:workflow --backup --output="$d/workflows/" >"$d/log" 2>&1; then
  grep -q "No workflows found" "$d/log" || { cat "$d/log" >&2; exit 1; }
fi
grep -q "No workflows found\|Successfully exported" "$d/log" || { cat "$d/log" >&2; exit 1; }
mkdir "$d/credentials"
if ! n8n export:credentials --backup --output="$d/credentials/" >"$d/log" 2>&1; then
  grep -q "No credentials found" "$d/log" || { cat "$d/log" >&2; exit 1; }
fi
grep -q "No credentials found\|Successfully exported" "$d/log" || { cat "$d/log" >&2; exit 1; }
node -e "$INDEX_JS" "$d/workflows" "$d/credentials" >"$d/index.json"
tar -C "$d" -cf - index.json workflows credentials'

# The save's index: how many credentials, one entry a workflow (file, id, name, published, nodes, pinned
# nodes), one a line.
# shellcheck disable=SC2016 # JavaScript
INDEX_JS='const fs = require("fs"), path = require("path"), dir = process.argv[1];
const workflows = fs.readdirSync(dir).filter((f) => f.endsWith(".json")).sort().map((file) => {
  const w = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8"));
  return { file: "workflows/" + file, id: String(w.id), name: w.name,
    published: Boolean(w.activeVersionId || w.active), archived: Boolean(w.isArchived),
    nodes: (w.nodes || []).length, pinned_nodes: Object.keys(w.pinData || {}).length };
});
const lines = workflows.map((w) => "    " + JSON.stringify(w));
const credentials = fs.readdirSync(process.argv[2]).filter((f) => f.endsWith(".json")).length;
process.stdout.write("{\n  \"lab\": " + JSON.stringify(process.env.LAB_NAME) + ",\n  \"saved_at\": " +
  JSON.stringify(new Date().toISOString()) + ",\n  \"made_by\": " + JSON.stringify(process.env.MADE_BY || "save") +
  ",\n  \"credentials\": " + credentials + ",\n  \"workflows\": [\n" + lines.join(",\n") + "\n  ]\n}\n");'

# n8n's CLI in a one-off container of the lab's n8n service, the script on argv: `n8n_oneoff SCRIPT`.
# Its database is started (and waited for) when the lab is stopped.
# Through the service's secrets entrypoint (docker/n8n/secrets-entrypoint.sh), which writes the database
# password and the encryption key into the files n8n reads, out of n8n's environment.
n8n_oneoff() {
  compose run --rm -T --entrypoint /bin/sh -e INDEX_JS="${INDEX_JS//$'\n'/ }" -e LAB_NAME="${LAB:-}" \
    -e MADE_BY="${MADE_BY:-save}" n8n /lab/secrets-entrypoint.sh sh -c "$1"
}

# Whether the lab has a database to save from (its Postgres volume exists, whatever its containers do).
lab_has_data() { docker volume inspect "${PROJECT}_postgres-data" >/dev/null 2>&1; }

# "N workflow(s), M published" for a save's folder.
save_summary() {
  echo "$(grep -c '"file":' "$1/index.json" || true) workflow(s), $(grep -c '"published":true' "$1/index.json" || true) published"
}

# lab_save [MADE_BY]: writes a save and prints its folder; one line on stderr and non-zero on failure
# (nothing half-written is left: the folder gets its name only when complete). MADE_BY (save, down or
# restore, recorded in the index) tells a restore's own saves apart. A stopped lab stays stopped. Called
# in a subshell ($(...)): the lock it takes ends with it.
lab_save() {
  local MADE_BY=${1:-save} root dir made=() stamp name n part err running rc lock why
  root=$(save_root)
  dir=$(save_dir_of_lab)
  [ -d "$root" ] || made+=("$root")
  [ -d "$dir" ] || made+=("$dir")
  if ! err=$( (umask 077 && mkdir -p "$dir") 2>&1); then
    echo "lab: could not make $(shown_path "$dir"): ${err##*: }" >&2
    return 1
  fi
  # Private: only the folders this save made; a LAB_SAVE_DIR that was there (a shared backup mount) keeps
  # its mode.
  [ "${#made[@]}" = 0 ] || chmod 700 "${made[@]}" 2>/dev/null || true
  # One save of a lab at a time (flock, util-linux; without it, as on a machine that is not Linux, no lock).
  if command -v flock >/dev/null 2>&1; then
    if ! (umask 077 && : >>"$dir/.lock") 2>/dev/null; then
      echo "lab: could not open $(shown_path "$dir")/.lock" >&2
      return 1
    fi
    exec {lock}>>"$dir/.lock"
    flock -n "$lock" ||
      { echo "lab: another save of $(lab_title) is running (make save, restore or down); wait for it to end, then retry" >&2; return 1; }
  fi
  stamp=$(date -u +%Y-%m-%dT%H%M%SZ)
  part=$dir/.$stamp.part
  rm -rf "$part"
  (umask 077 && mkdir "$part") || return 1
  running=$(compose ps -q --status running postgres 2>/dev/null || true)
  rc=0
  err=$( (umask 077 && set -o pipefail && n8n_oneoff "$SAVE_SCRIPT" |
    tar -x --no-same-owner --no-same-permissions -C "$part") 2>&1) || rc=$?
  [ -n "$running" ] || compose stop postgres >/dev/null 2>&1 || true
  if [ "$rc" != 0 ]; then
    rm -rf "$part"
    # n8n's own words, not tar's complaint about the empty stream that followed them.
    why="n8n's export of $(lab_title) failed: $(grep -v '^ *$' <<<"$err" | grep -v '^tar: ' | tail -n 1)"
    echo "lab: $why" >&2
    tool_output "$(grep -v '^tar: ' <<<"$err" || true)" "$why"
    return 1
  fi
  [ -s "$part/index.json" ] || { rm -rf "$part"; echo "lab: n8n's export of $(lab_title) wrote no index" >&2; return 1; }
  chmod -R go= "$part"
  # A folder of its own, never inside another save's: a second save ending in the same second gets -02
  # (names sort in time order: the stamp first, then the suffix).
  name=$stamp n=1
  while [ -e "$dir/$name" ]; do
    n=$((n + 1))
    name=$stamp-$(printf '%02d' "$n")
  done
  mv "$part" "$dir/$name"
  echo "$dir/$name"
}

cmd_save() {
  local start=$SECONDS where
  need_docker
  lab_has_data || die "$(lab_title) has nothing to save: it does not exist (make up$LAB_ARG starts it)"
  load_settings
  where=$(lab_save 2>&1) || die_with "$(tool_lines "$where")" "could not save $(lab_title)'s workflows: $(first_said "$where")"
  where=${where##*$'\n'}
  say "saved $(lab_title)'s workflows ($(save_summary "$where"), with their published state and pinned data) to $(shown_path "$where")/ in $(since "$start") s; make restore$LAB_ARG brings them back"
}

# The newest complete save of this lab that a restore did not make (so that make restore twice brings back
# the same save, not what the first restore replaced), or FROM=<folder>.
save_to_restore() {
  local dir latest="" d
  if [ -n "${FROM:-}" ]; then
    [ -f "$FROM/index.json" ] || die "FROM=$FROM is not a save (no index.json in it); saves are in $(shown_path "$(save_dir_of_lab)")/"
    echo "$FROM"
    return 0
  fi
  dir=$(save_dir_of_lab)
  while IFS= read -r d; do
    grep -q '"made_by": "restore"' "$d/index.json" 2>/dev/null && continue
    [ -f "$d/index.json" ] && { latest=$d; break; }
  done < <(find "$dir" -mindepth 1 -maxdepth 1 -type d -name '2*' 2>/dev/null | LC_ALL=C sort -r)
  [ -n "$latest" ] || die "no save of $(lab_title) in $(shown_path "$dir")/ (make save$LAB_ARG makes one; make down$LAB_ARG saves first)"
  echo "$latest"
}

# The ids a save holds; with `published`, only those it records as published.
save_ids() {
  local index=$1/index.json
  if [ "${2:-}" = published ]; then grep '"published":true' "$index"; else grep '"file":' "$index"; fi |
    sed -E 's/.*"id":"([A-Za-z0-9]+)".*/\1/'
}

# The save to bring back is chosen first; then what the lab holds now is saved (a failed save restores
# nothing), then the import. The closing line names both saves.
cmd_restore() {
  local start=$SECONDS from made all published out
  need_running_lab
  from=$(save_to_restore) || exit 1
  mapfile -t all < <(save_ids "$from")
  mapfile -t published < <(save_ids "$from" published)
  [ "${#all[@]}" -gt 0 ] || { say "the save $(shown_path "$from") holds no workflow; nothing to restore"; return 0; }
  made=$(lab_save restore 2>&1) ||
    die_with "$(tool_lines "$made")" "nothing was restored: what $(lab_title) holds now could not be saved first ($(first_said "$made"))"
  made=${made##*$'\n'}
  out=$(tools_run "${N8N_CLI[@]}" unpublish "${all[@]}" 2>&1) || die_with "$out" "could not prepare the restore: ${out##*$'\n'}"
  if ! out=$(import_save "$from" 2>&1); then
    die_with "$out" "n8n's import into $(lab_title) failed: $(grep -v '^ *$' <<<"$out" | tail -n 1) (what it held before is saved in $(shown_path "$made")/)"
  fi
  if [ "${#published[@]}" -gt 0 ]; then
    out=$(tools_run "${N8N_CLI[@]}" republish "${published[@]}" 2>&1) ||
      die_with "$out" "the workflows are back, unpublished; publishing them again failed: ${out##*$'\n'}"
    # shellcheck disable=SC2001 # every line of the answer prefixed, not one replacement
    sed 's/^/lab: /' <<<"$out"
  fi
  say "restored ${#all[@]} workflow(s) of $(shown_path "$from") into $(lab_title), ${#published[@]} published again, in $(since "$start") s; what it held before is saved in $(shown_path "$made")/ ($(save_summary "$made")): make restore$LAB_ARG FROM=$(shown_path "$made") brings it back"
}

# n8n's own import of a save's workflows into the lab (ids kept); its log on failure.
import_save() {
  # shellcheck disable=SC2016 # expanded by the container's shell
  tar -C "$1" -cf - workflows | n8n_oneoff 'set -eu; d=$(mktemp -d); tar -x -C "$d"
n8n import:workflow --separate --input="$d/workflows" >"$d/log" 2>&1 || { cat "$d/log"; exit 1; }'
}

# How many credentials a save holds (0 for a save made before saves held them).
save_credentials() {
  local n
  n=$(sed -n 's/^  "credentials": \([0-9]*\),$/\1/p' "$1/index.json")
  echo "${n:-0}"
}

# n8n's own import of a save's credentials into the lab (ids kept; still encrypted: the lab's key opens
# them); its log on failure.
import_credentials() {
  # shellcheck disable=SC2016 # expanded by the container's shell
  tar -C "$1" -cf - credentials | n8n_oneoff 'set -eu; d=$(mktemp -d); tar -x -C "$d"
n8n import:credentials --separate --input="$d/credentials" >"$d/log" 2>&1 || { cat "$d/log"; exit 1; }'
}

cmd_stop() {
  local start=$SECONDS out
  need_docker
  lab_exists || die "$(lab_title) does not exist (make up$LAB_ARG starts it)"
  out=$(compose stop --timeout 20 2>&1) || die_with "$out" "could not stop $(lab_title)"
  say "stopped $(lab_title) in $(since "$start") s: its workflows, login and settings are kept; make start$LAB_ARG brings it back"
}

cmd_start() {
  local start=$SECONDS
  need_docker
  # A lab whose move was cut short has no containers: make start finishes the move (docker/lab/update.sh).
  lab_exists || move_pending || die "$(lab_title) does not exist (make up$LAB_ARG starts a new one)"
  load_settings
  # A lab of an earlier version (a git pull since make stop) is brought to this one first.
  update_if_older
  compose_up_wait
  [ -z "$MOVED_SAVE" ] || { n8n_setup; finish_move; }
  echo
  echo "Started: $(lab_title), $(since "$start") s from make start to ready, with its workflows."
  where_things_are
}
