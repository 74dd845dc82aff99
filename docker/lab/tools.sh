# shellcheck shell=bash
# The lab's tools, run inside the lab from its own image (compose service `tools`, profile tools): n8n's
# set-up, the reference solution, stopping runs, the stage checker and the acceptance matrix. They reach
# n8n by service name and the mock API through its socket; the host needs no Node.js.

N8N_CLI=(node dist/app/n8n/cli.js)
CHECKER=(node dist/app/check/cli.js)
MATRIX=(node dist/app/acceptance/cli.js)
# Where the tools reach the lab from inside (compose.yaml's tools service).
IN_LAB=(--target n8n --api-socket /run/mock-api/api.sock --n8n http://n8n:5678 --resume-origin http://n8n:5678)

tools_run() { compose run --rm -T --no-deps ${TOOL_VOLUMES[@]+"${TOOL_VOLUMES[@]}"} tools "$@"; }
TOOL_VOLUMES=()

# n8n's owner (the lab's login) and the lab's key for n8n's public API, made once and kept in the
# settings file; the console is started again when the key is new (its Reset stops runs with it).
n8n_setup() {
  local out key
  out=$(tools_run "${N8N_CLI[@]}" setup 2>&1 <<EOF2
{"email":"$(env_value N8N_OWNER_EMAIL)","password":"$(env_value N8N_OWNER_PASSWORD)","firstName":"Lab","lastName":"Trainee","apiKey":"$(env_value N8N_API_KEY)"}
EOF2
  ) || die_with "$out" "could not set up n8n's login and API key: ${out##*$'\n'}"
  grep -q '^owner created' <<<"$out" && say "n8n login created"
  key=$(sed -n 's/^key //p' <<<"$out")
  if [ -n "$key" ]; then
    set_env_value N8N_API_KEY "$key"
    say "n8n API key for the lab's tools written to ${ENV_FILE#"$LAB_DIR"/}"
    compose up -d --no-deps --force-recreate --wait console >/dev/null 2>&1 || die "the console did not come back after the new API key"
  fi
}

# The reference workflows, imported and published through n8n's API (refused in one line when a
# trainee's workflow holds their webhook path).
publish_solution() { tools_run "${N8N_CLI[@]}" solution | sed 's/^/lab: /'; }

stop_unfinished_runs() {
  local out
  out=$(tools_run "${N8N_CLI[@]}" stop-runs 2>&1) ||
    die_with "$out" "could not stop the unfinished workflow runs (${out##*$'\n'}); nothing was reset"
  say "$out"
}

# Copies a report the tools wrote in the lab (the console shows it) to the host's reports folder; the
# check history is merged into the host's copy, never replaces it.
copy_report() {
  local tmp
  reports_dir || return 1
  if [ "$1" != "$HISTORY_FILE" ]; then
    compose cp "console:/reports/$1" "$REPORTS/$1" >/dev/null 2>&1 && echo "report: ${REPORTS#"$ROOT"/}/$1"
    return
  fi
  tmp=$(mktemp "$REPORTS/.history.XXXXXX") || return 1
  if compose cp "console:/reports/$1" "$tmp" >/dev/null 2>&1 && merge_history "$tmp"; then
    rm -f "$tmp"
    echo "report: ${REPORTS#"$ROOT"/}/$1"
  else
    rm -f "$tmp"
    return 1
  fi
}

# The host's reports folders, made readable by the class board's uid (1000) whatever the caller's umask
# (only those made here: the reports are no secret, and the board reads them read-only).
reports_dir() {
  local d
  for d in "$ROOT/reports" "$REPORTS"; do
    [ -d "$d" ] || { mkdir -p "$d" && chmod 755 "$d"; } || return 1
  done
}

# The report files' names and HISTORY_KEPT: settings.generated.sh, from app/lab-settings/names.ts.
# The image that reads a lab's reports volume before a removal (compose.yaml's console image).
REPORTS_IMAGE=$LAB_IMAGE
# Prints one file of the volume; exit 3 when there is no such file (a lab never checked).
# shellcheck disable=SC2016 # JavaScript
READ_REPORT_JS='const fs = require("fs");
try { process.stdout.write(fs.readFileSync(process.argv[1])); }
catch (e) { if (e.code === "ENOENT") process.exit(3); console.error(e.message); process.exit(1); }'

# merge_history FILE: FILE's lines (a lab's check history as its volume holds it) merged into the host's
# copy: each line once, oldest first, the newest HISTORY_KEPT kept. Every line begins with the check's time
# ({"at":"<ISO time>",...), so sorting the lines sorts the checks: a lab that came back with an empty
# volume adds its new checks to the older ones. Readable by the class board's uid (1000), like every report.
merge_history() {
  local host=$REPORTS/$HISTORY_FILE tmp
  tmp=$(mktemp "$REPORTS/.history.XXXXXX") || return 1
  if [ -f "$host" ]; then sed '/^[[:space:]]*$/d' "$host" "$1"; else sed '/^[[:space:]]*$/d' "$1"; fi |
    LC_ALL=C sort -u | tail -n "$HISTORY_KEPT" >"$tmp" && chmod 644 "$tmp" && mv -f "$tmp" "$host" && return 0
  rm -f "$tmp"
  return 1
}

# keep_reports: before a removal, the lab's check reports and its tutor's runs from its reports volume to
# the host's reports folder (the last report and the runs replaced, the history merged), read by a one-off container of the lab's image
# (the volume read-only, no network), whatever the lab's own containers do. Nothing to keep without the
# volume; one line on stderr and non-zero when a report could not be read or written.
keep_reports() {
  local volume=${PROJECT}_lab-reports file tmp rc
  docker volume inspect "$volume" >/dev/null 2>&1 || return 0
  reports_dir || { echo "lab: could not make ${REPORTS#"$ROOT"/}/" >&2; return 1; }
  for file in "$REPORT_FILE" "$HISTORY_FILE" "$RUNS_FILE"; do
    tmp=$(mktemp "$REPORTS/.keep.XXXXXX") || { echo "lab: could not write in ${REPORTS#"$ROOT"/}/" >&2; return 1; }
    rc=0
    docker run --rm --network none --read-only --cap-drop ALL --security-opt no-new-privileges --user 1000:1000 \
      --mount "type=volume,source=$volume,target=/reports,readonly" "$REPORTS_IMAGE" \
      node -e "$READ_REPORT_JS" "/reports/$file" >"$tmp" 2>"$tmp.err" || rc=$?
    if [ "$rc" = 0 ] && [ "$file" = "$HISTORY_FILE" ]; then
      merge_history "$tmp" || rc=1
    elif [ "$rc" = 0 ]; then
      chmod 644 "$tmp" && mv -f "$tmp" "$REPORTS/$file" || rc=1
    fi
    if [ "$rc" != 0 ] && [ "$rc" != 3 ]; then
      echo "lab: could not keep $file: $(tail -n 1 "$tmp.err" 2>/dev/null)" >&2
      tool_output "$(cat "$tmp.err" 2>/dev/null)" "$(tail -n 1 "$tmp.err" 2>/dev/null)"
      rm -f "$tmp" "$tmp.err"
      return 1
    fi
    rm -f "$tmp" "$tmp.err"
  done
}

# ARGS may name a file on the host (--mapping FILE): it is mounted read-only into the tools container.
host_file_args() {
  TOOL_ARGS=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --mapping) [ $# -ge 2 ] || die "--mapping needs a file"; mount_mapping "$2"; shift 2 ;;
      --mapping=*) mount_mapping "${1#--mapping=}"; shift ;;
      *) TOOL_ARGS+=("$1"); shift ;;
    esac
  done
}
mount_mapping() {
  [ -f "$1" ] || die "--mapping $1: no such file"
  TOOL_VOLUMES+=(-v "$(cd "$(dirname "$1")" && pwd)/$(basename "$1"):/lab/input/mapping.json:ro")
  TOOL_ARGS+=(--mapping /lab/input/mapping.json)
}

cmd_check() {
  [ $# -gt 0 ] || die "usage: make check STAGE=<stage|all> [ARGS=...]"
  local stage=$1 rc=0
  shift
  need_running_lab
  host_file_args "$@"
  # --editor-url: the runs' links in the report open in the trainee's browser, at the lab's published editor.
  tools_run "${CHECKER[@]}" --stage "$stage" "${IN_LAB[@]}" --editor-url "$EDITOR_URL" --report "/reports/$REPORT_FILE" ${TOOL_ARGS[@]+"${TOOL_ARGS[@]}"} || rc=$?
  copy_report "$REPORT_FILE" || true
  copy_report "$HISTORY_FILE" >/dev/null || true
  return "$rc"
}

# The acceptance matrix on the lab's published reference workflows (make solution, or LAB_MODE=demo).
cmd_acceptance_lab() {
  local rc=0
  need_running_lab
  tools_run "${MATRIX[@]}" "${IN_LAB[@]}" --report /reports/acceptance-lab.json "$@" || rc=$?
  copy_report acceptance-lab.json || true
  return "$rc"
}

# A starter for a trainee stuck at STAGE: the guide's workflow up to the stage before, added to the editor
# unpublished (app/n8n/starter.ts); the trainee's own workflows are not touched. LAB_STARTERS=off refuses.
cmd_starter() {
  [ -n "${1:-}" ] || die "usage: make starter$LAB_ARG STAGE=<stage> (the stage the trainee is stuck at)"
  need_running_lab
  tools_run "${N8N_CLI[@]}" starter "$1" | sed 's/^/lab: /'
}
