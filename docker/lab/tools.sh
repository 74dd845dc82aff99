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
  ) || die "could not set up n8n's login and API key: ${out##*$'\n'}"
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
    die "could not stop the unfinished workflow runs (${out##*$'\n'}); nothing was reset"
  say "$out"
}

# Copies a report the tools wrote in the lab (the console shows it) to the host's reports folder.
copy_report() {
  mkdir -p "$REPORTS"
  compose cp "console:/reports/$1" "$REPORTS/$1" >/dev/null 2>&1 && echo "report: ${REPORTS#"$ROOT"/}/$1"
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
  tools_run "${CHECKER[@]}" --stage "$stage" "${IN_LAB[@]}" --report /reports/check-last.json ${TOOL_ARGS[@]+"${TOOL_ARGS[@]}"} || rc=$?
  copy_report check-last.json || true
  copy_report check-history.jsonl >/dev/null || true
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

# A starter for a trainee stuck at STAGE: the reference up to the stage before, added to the editor
# unpublished (app/n8n/starter.ts); the trainee's own workflows are not touched. LAB_STARTERS=off refuses.
cmd_starter() {
  [ -n "${1:-}" ] || die "usage: make starter$LAB_ARG STAGE=<stage> (the stage the trainee is stuck at)"
  need_running_lab
  tools_run "${N8N_CLI[@]}" starter "$1" | sed 's/^/lab: /'
}
