#!/usr/bin/env bash
# Operator commands of the compose lab, called by make: up, down, reset, health, state, logs, acceptance.
#
#   up          refuse early what would fail half-way (subnet overlap, editor port taken, no compose, too
#               little memory); generate the secrets into .env when missing, build, start, wait until
#               every service is healthy, create n8n's owner and the lab's API key, print where things
#               are. On a lab that is already up it changes nothing and prints where things are.
#   down        stop; remove the containers, networks, volumes and the generated .env
#   reset       stop every unfinished workflow run, then POST /reset on the mock API: a clean exercise
#   health / state   GET /health, GET /state      logs [SVC]  follow the logs
#   acceptance lab|n8n|reference   the matrix     check STAGE [ARGS]   the stage checker on the lab
#   api METHOD PATH [JSON]   any request to the mock API, e.g. api POST /control/case-mode '{"mode":"failed"}'
#   exec-prefix the shell phrase that reaches the mock API (what `acceptance lab` hands to the runner)
#
# The mock API has no published port: every operator command reaches it through its own container
# (`compose exec mock-api node dist/app/cli/api-request.js ...`).
#
# Settings (environment; `make up` records them in .env, and they hold until `make down`):
#   LAB_SUBNET (172.30.66.0/24)  the internal lab network; the mock API is its .2, the worker its .10
#   LAB_EDITOR_PORT (5678)       the n8n editor and webhooks, published on 127.0.0.1 only
#   LAB_CONSOLE_PORT (8088)      the lab console, published on 127.0.0.1 only
#   LAB_MIN_MEMORY_MB (3072)     refuse to start on an engine with less memory
# For the tests only: LAB_PROJECT (soar-lab), LAB_COMPOSE_FILES (space-separated, default compose.yaml),
# LAB_ENV_FILE (.env), LAB_HEALTH_TIMEOUT (seconds, 300).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
PROJECT=${LAB_PROJECT:-soar-lab}
read -r -a COMPOSE_FILES <<<"${LAB_COMPOSE_FILES:-compose.yaml}"
ENV_FILE=${LAB_ENV_FILE:-$ROOT/.env}
HEALTH_TIMEOUT=${LAB_HEALTH_TIMEOUT:-300}
API_REQUEST=(node dist/app/cli/api-request.js)
DEFAULT_SUBNET=172.30.66.0/24
DEFAULT_EDITOR_PORT=5678
DEFAULT_CONSOLE_PORT=8088
COMPOSE=()
COMPOSE_ARGS=()

die() {
  echo "lab: $*" >&2
  exit 1
}

need_docker() {
  command -v docker >/dev/null 2>&1 ||
    die "Docker is needed: 'docker' was not found (install Docker Engine or Docker Desktop, then retry)"
  docker info >/dev/null 2>&1 ||
    die "the Docker engine does not answer (is it running? DOCKER_HOST=${DOCKER_HOST:-unset})"
  if docker compose version >/dev/null 2>&1; then
    COMPOSE=(docker compose)
  elif command -v docker-compose >/dev/null 2>&1; then
    COMPOSE=(docker-compose)
  else
    die "Docker Compose is needed: neither 'docker compose' nor 'docker-compose' was found"
  fi
}

env_value() { [ -f "$ENV_FILE" ] && sed -n "s/^$1=//p" "$ENV_FILE" | tail -n 1; }

# A setting: the environment wins, then what `make up` recorded in .env, then the default.
setting() {
  local value=${!1:-}
  [ -n "$value" ] || value=$(env_value "$1" || true)
  echo "${value:-$2}"
}

# --- addresses (bash arithmetic on IPv4, no external tool) ---------------------------------------------
ip_to_int() {
  local IFS=. a b c d
  read -r a b c d <<<"$1"
  echo $(((a << 24) | (b << 16) | (c << 8) | d))
}
int_to_ip() { echo "$((($1 >> 24) & 255)).$((($1 >> 16) & 255)).$((($1 >> 8) & 255)).$(($1 & 255))"; }
is_ipv4_cidr() {
  [[ $1 =~ ^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})/([0-9]{1,2})$ ]] || return 1
  local i
  for i in 1 2 3 4; do [ "${BASH_REMATCH[$i]}" -le 255 ] || return 1; done
  [ "${BASH_REMATCH[5]}" -le 32 ]
}
# "first last" addresses of a CIDR, as integers.
cidr_range() {
  local base=${1%/*} bits=${1#*/} start size
  size=$((1 << (32 - bits)))
  start=$(($(ip_to_int "$base") & ~(size - 1) & 0xFFFFFFFF))
  echo "$start $((start + size - 1))"
}
cidrs_overlap() {
  local a1 a2 b1 b2
  read -r a1 a2 <<<"$(cidr_range "$1")"
  read -r b1 b2 <<<"$(cidr_range "$2")"
  [ "$a1" -le "$b2" ] && [ "$b1" -le "$a2" ]
}

# Reads and checks the settings; exports what compose.yaml interpolates.
load_settings() {
  LAB_SUBNET=$(setting LAB_SUBNET "$DEFAULT_SUBNET")
  LAB_EDITOR_PORT=$(setting LAB_EDITOR_PORT "$DEFAULT_EDITOR_PORT")
  LAB_CONSOLE_PORT=$(setting LAB_CONSOLE_PORT "$DEFAULT_CONSOLE_PORT")
  is_ipv4_cidr "$LAB_SUBNET" && [ "${LAB_SUBNET#*/}" -ge 16 ] && [ "${LAB_SUBNET#*/}" -le 28 ] ||
    die "LAB_SUBNET=$LAB_SUBNET is not an IPv4 network from /16 to /28 (e.g. 172.30.66.0/24)"
  local name
  for name in LAB_EDITOR_PORT LAB_CONSOLE_PORT; do
    [[ ${!name} =~ ^[0-9]{1,5}$ ]] && [ "${!name}" -ge 1 ] && [ "${!name}" -le 65535 ] ||
      die "$name=${!name} is not a port number (1-65535)"
  done
  [ "$LAB_EDITOR_PORT" != "$LAB_CONSOLE_PORT" ] || die "LAB_EDITOR_PORT and LAB_CONSOLE_PORT are both $LAB_EDITOR_PORT"
  local first
  read -r first _ <<<"$(cidr_range "$LAB_SUBNET")"
  LAB_SUBNET="$(int_to_ip "$first")/${LAB_SUBNET#*/}"
  LAB_API_IP=$(int_to_ip $((first + 2)))
  LAB_WORKER_IP=$(int_to_ip $((first + 10)))
  EDITOR_URL=http://127.0.0.1:$LAB_EDITOR_PORT
  CONSOLE_URL=http://127.0.0.1:$LAB_CONSOLE_PORT
  export LAB_SUBNET LAB_EDITOR_PORT LAB_CONSOLE_PORT LAB_API_IP LAB_WORKER_IP
}

# --- compose --------------------------------------------------------------------------------------------
# The compose command line with the project, its files and its env file (bash 3.2 has no mapfile).
compose_args() {
  COMPOSE_ARGS=("${COMPOSE[@]}" -p "$PROJECT" --project-directory "$ROOT")
  local f
  for f in "${COMPOSE_FILES[@]}"; do COMPOSE_ARGS+=(-f "$f"); done
  if [ -f "$ENV_FILE" ]; then COMPOSE_ARGS+=(--env-file "$ENV_FILE"); fi
}

compose() {
  compose_args
  if [ -f "$ENV_FILE" ]; then
    "${COMPOSE_ARGS[@]}" "$@"
  else
    # Without .env (before `up`, after `down`) the file's required secrets are unset; commands that
    # need none (down, ps, logs) still work with placeholders that no container ever receives.
    POSTGRES_PASSWORD=unset N8N_ENCRYPTION_KEY=unset "${COMPOSE_ARGS[@]}" "$@"
  fi
}

random_hex() { od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n'; }

# Lab-only secrets and the settings, generated once and kept until `make down`. Never a production
# credential.
ensure_env_file() {
  [ -f "$ENV_FILE" ] && return 0
  (
    umask 077
    cat >"$ENV_FILE" <<EOF
# Generated by \`make up\` (docker/lab.sh) for this lab only; removed by \`make down\`. Never commit it.
LAB_SUBNET=$LAB_SUBNET
LAB_EDITOR_PORT=$LAB_EDITOR_PORT
LAB_CONSOLE_PORT=$LAB_CONSOLE_PORT
LAB_API_IP=$LAB_API_IP
LAB_WORKER_IP=$LAB_WORKER_IP
N8N_ENCRYPTION_KEY=$(random_hex 32)
POSTGRES_PASSWORD=$(random_hex 24)
N8N_OWNER_EMAIL=trainer@soar-lab.test
N8N_OWNER_PASSWORD=Lab-$(random_hex 12)-Aa1
EOF
  )
  echo "lab: generated lab secrets and settings into $ENV_FILE (removed by make down)"
}

set_env_value() { # set_env_value NAME VALUE: replace or append, keeping the file private
  local rest
  rest=$(grep -v "^$1=" "$ENV_FILE" || true)
  (umask 077 && printf '%s\n%s=%s\n' "$rest" "$1" "$2" >"$ENV_FILE.new" && mv "$ENV_FILE.new" "$ENV_FILE")
}

# One line per container: service, state, health ("-" when it has no healthcheck), exit code.
service_states() {
  local ids
  ids=$(compose ps -a -q) || return 1
  [ -n "$ids" ] || return 0
  # shellcheck disable=SC2086
  docker inspect -f '{{index .Config.Labels "com.docker.compose.service"}} {{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{else}}-{{end}} {{.State.ExitCode}}' $ids
}

not_ready() { awk '!(($2 == "running" && ($3 == "healthy" || $3 == "-")) || ($2 == "exited" && $4 == 0))'; }

# Every service of the files has a container that runs healthy (one-shots: exited 0).
lab_is_up() {
  local states expected
  states=$(service_states) || return 1
  expected=$(($(compose config --services | wc -l)))
  [ -n "$states" ] && [ -z "$(not_ready <<<"$states")" ] && [ "$(grep -c . <<<"$states")" -ge "$expected" ]
}

# Waits until every service runs and is healthy (one-shots: exited 0). Prints the seconds it took.
wait_healthy() {
  local start=$SECONDS expected states pending failed
  expected=$(($(compose config --services | wc -l)))
  while :; do
    states=$(service_states)
    failed=$(awk '($2 == "exited" && $4 != 0) || $3 == "unhealthy" || $2 == "dead"' <<<"$states")
    if [ -n "$failed" ]; then
      echo "lab: a service failed:" >&2
      echo "$failed" >&2
      compose logs --tail=30 >&2 || true
      return 1
    fi
    pending=$(not_ready <<<"$states")
    if [ -z "$pending" ] && [ "$(grep -c . <<<"$states")" -ge "$expected" ]; then
      echo "lab: all $expected services healthy after $((SECONDS - start)) s"
      return 0
    fi
    if [ $((SECONDS - start)) -ge "$HEALTH_TIMEOUT" ]; then
      echo "lab: not healthy after ${HEALTH_TIMEOUT} s; waiting for:" >&2
      echo "${pending:-(containers not created yet)}" >&2
      return 1
    fi
    sleep 2
  done
}

# --- refusals before anything starts ----------------------------------------------------------------------
# Each check prints one line and stops `up` before a container, network or secret is made.
preflight() {
  local min_mb=${LAB_MIN_MEMORY_MB:-3072} total_mb net subnet route
  total_mb=$(($(docker info -f '{{.MemTotal}}' 2>/dev/null || echo 0) / 1048576))
  [ "$total_mb" -ge "$min_mb" ] ||
    die "the Docker engine has ${total_mb} MiB of memory; the lab needs at least ${min_mb} MiB (LAB_MIN_MEMORY_MB)"
  if (: <"/dev/tcp/127.0.0.1/$LAB_EDITOR_PORT") 2>/dev/null; then
    die "127.0.0.1:$LAB_EDITOR_PORT (the n8n editor) is already in use: stop what listens there, or choose another port: LAB_EDITOR_PORT=5679 make up"
  fi
  if (: <"/dev/tcp/127.0.0.1/$LAB_CONSOLE_PORT") 2>/dev/null; then
    die "127.0.0.1:$LAB_CONSOLE_PORT (the lab console) is already in use: stop what listens there, or choose another port: LAB_CONSOLE_PORT=8089 make up"
  fi
  # Docker networks of other projects, then the host's routes (a VPN, another bridge).
  while read -r net subnet; do
    [ -n "$subnet" ] && is_ipv4_cidr "$subnet" || continue
    case "$net" in "${PROJECT}_"*) continue ;; esac
    cidrs_overlap "$LAB_SUBNET" "$subnet" &&
      die "LAB_SUBNET=$LAB_SUBNET overlaps the Docker network '$net' ($subnet): choose another, e.g. LAB_SUBNET=172.30.67.0/24 make up"
  done < <(docker network ls -q | xargs -r docker network inspect -f '{{.Name}}{{range .IPAM.Config}} {{.Subnet}}{{end}}' 2>/dev/null |
    awk '{for (i = 2; i <= NF; i++) print $1, $i}')
  if command -v ip >/dev/null 2>&1; then
    while read -r route _; do
      is_ipv4_cidr "$route" || continue
      [ "${route#*/}" -ge 8 ] || continue
      cidrs_overlap "$LAB_SUBNET" "$route" &&
        die "LAB_SUBNET=$LAB_SUBNET overlaps a route of this machine ($route): choose another, e.g. LAB_SUBNET=172.30.67.0/24 make up"
    done < <(ip -4 route show 2>/dev/null | grep -v '^default' | grep -E '^[0-9.]+/[0-9]+ ' | grep -v ' dev br-\| dev docker0')
  fi
  return 0
}

# A running lab keeps the settings it was made with.
same_settings_as_running() {
  local name recorded
  for name in LAB_SUBNET LAB_EDITOR_PORT LAB_CONSOLE_PORT; do
    recorded=$(env_value "$name" || true)
    [ -z "$recorded" ] || [ "$recorded" = "${!name}" ] ||
      die "the lab is running with $name=$recorded; run make down first to change it"
  done
}

# --- n8n's owner and the lab's API key -------------------------------------------------------------------
# node inside the n8n container (its loopback: the editor port there is always 5678), the script from
# argv and the secrets on stdin, so they appear in no process list.
n8n_node() { compose exec -T n8n node -e "$1"; }

# n8n's owner is set up once through its own REST endpoint.
setup_owner() {
  local body answer
  body=$(printf '{"email":"%s","firstName":"Lab","lastName":"Trainer","password":"%s"}' \
    "$(env_value N8N_OWNER_EMAIL)" "$(env_value N8N_OWNER_PASSWORD)")
  answer=$(n8n_node '
    let body = "";
    process.stdin.on("data", (c) => (body += c)).on("end", async () => {
      const r = await fetch("http://127.0.0.1:5678/rest/owner/setup", {
        method: "POST", headers: { "content-type": "application/json" }, body });
      console.log(r.ok ? "created" : r.status === 400 ? "exists" : "failed " + r.status);
    });' <<<"$body") || answer="failed"
  case "$answer" in
    created) echo "lab: n8n owner created" ;;
    exists) echo "lab: n8n owner already set up" ;;
    *) die "could not set up n8n's owner ($answer)" ;;
  esac
}

# A key for n8n's public API (read runs and workflows, stop runs), kept in .env as N8N_API_KEY: the stage
# checker reads execution data with it and `make reset` stops unfinished runs with it. Made once, by the
# owner logging in; checked on every `up`.
ensure_api_key() {
  local key answer
  key=$(env_value N8N_API_KEY || true)
  if [ -n "$key" ]; then
    answer=$(n8n_node '
      let key = "";
      process.stdin.on("data", (c) => (key += c)).on("end", async () => {
        const r = await fetch("http://127.0.0.1:5678/api/v1/workflows?limit=1", { headers: { "x-n8n-api-key": key.trim() } });
        console.log(r.status);
      });' <<<"$key") || answer=0
    [ "$answer" = 200 ] && return 0
  fi
  answer=$(n8n_node '
    let input = "";
    process.stdin.on("data", (c) => (input += c)).on("end", async () => {
      const [email, password] = input.trim().split("\n");
      const login = await fetch("http://127.0.0.1:5678/rest/login", { method: "POST",
        headers: { "content-type": "application/json" }, body: JSON.stringify({ emailOrLdapLoginId: email, password }) });
      if (!login.ok) { console.log("failed login " + login.status); return; }
      const cookie = login.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
      const scopes = ["workflow:read", "workflow:list", "execution:read", "execution:list", "execution:stop"];
      const made = await fetch("http://127.0.0.1:5678/rest/api-keys", { method: "POST",
        headers: { "content-type": "application/json", cookie },
        body: JSON.stringify({ label: "soar-lab " + new Date().toISOString(), scopes, expiresAt: null }) });
      const body = await made.json().catch(() => ({}));
      console.log(made.ok && body.data?.rawApiKey ? "key " + body.data.rawApiKey : "failed api-keys " + made.status);
    });' <<<"$(env_value N8N_OWNER_EMAIL)
$(env_value N8N_OWNER_PASSWORD)") || answer="failed"
  case "$answer" in
    "key "*) set_env_value N8N_API_KEY "${answer#key }" && echo "lab: n8n API key for the lab written to $ENV_FILE" ;;
    *) die "could not make n8n's API key for the lab ($answer)" ;;
  esac
  # The console's Reset stops runs with it too: start the console again with the new key.
  compose up -d --no-deps --force-recreate console
  wait_healthy >/dev/null
}

# Stops every run that has not finished (waiting for approval, running, queued), until none is left: a
# run stopped here can no longer resume, time out or call the mock API. It runs in the console's
# container, the one that reaches n8n main (and not the mock API), with the key on stdin
# (app/cli/stop-runs.ts: the same code as the console's Reset).
stop_unfinished_runs() {
  local answer
  answer=$(compose exec -T console node dist/app/cli/stop-runs.js http://n8n:5678 <<<"$(env_value N8N_API_KEY)" 2>&1) ||
    die "could not stop the unfinished workflow runs (${answer##*stop-runs: }); nothing was reset"
  echo "lab: ${answer} unfinished workflow run(s)"
}

api() { compose exec -T mock-api "${API_REQUEST[@]}" "$@"; }

where_things_are() {
  cat <<EOF
  console:     $CONSOLE_URL   the destination systems live: approvals, blocklist, cases, journal
  n8n editor:  $EDITOR_URL   owner $(env_value N8N_OWNER_EMAIL), password in $ENV_FILE
  first alert: curl -X POST $EDITOR_URL/webhook/suspicious-login -H 'content-type: application/json' \\
                 -d '{"event_id":"evt-1","event_type":"suspicious_login","user":"lab-admin","source_ip":"203.0.113.66","failed_attempts":7,"successful_login":true,"confidence":92,"environment":"training"}'
  approve:     confidence >= 80 waits for approval: its request is a notification (channel "approval")
               with a resume_url in \`make state\`. Approve (or reject) with
                 curl -X POST '<resume_url>' -H 'content-type: application/json' \\
                      -d '{"decision":"approve","approver":"<your name>"}'
               (an answer 409 "running already" means the run is not waiting yet: send it again)
  state:       make state (destination systems)   make health   make reset (clean exercise)
  mock API:    not published; only the n8n worker reaches it (http://mock-api:8081 on $LAB_SUBNET)
  check:       make acceptance (the matrix)       clean-up: make down (containers, volumes, secrets)
EOF
}

cmd_up() {
  local start=$SECONDS
  need_docker
  load_settings
  if [ -n "$(compose ps -q 2>/dev/null)" ]; then
    same_settings_as_running
    if lab_is_up; then
      echo "lab: the lab is already up; nothing changed (make down, then make up, starts afresh)"
      where_things_are
      return 0
    fi
    echo "lab: some services are not up; starting what is missing (nothing that runs is recreated)"
  else
    preflight
  fi
  ensure_env_file
  compose build mock-api
  compose up -d --no-recreate --remove-orphans
  wait_healthy
  setup_owner
  ensure_api_key
  echo
  echo "The lab is up ($((SECONDS - start)) s from make up to ready)."
  where_things_are
}

cmd_down() {
  local start=$SECONDS
  need_docker
  compose down --volumes --remove-orphans --timeout 10
  rm -f "$ENV_FILE"
  echo "lab: removed containers, networks, volumes and $ENV_FILE in $((SECONDS - start)) s"
}

need_running_api() {
  need_docker
  [ -n "$(compose ps -q mock-api 2>/dev/null)" ] || die "the lab is not running (start it with: make up)"
}

cmd_reset() {
  need_running_api
  stop_unfinished_runs
  api POST /reset '{}'
}

# The shell phrase `<compose> exec -T mock-api node dist/app/cli/api-request.js --envelope`; the acceptance
# runner appends METHOD PATH [JSON] and runs it with sh -c.
exec_prefix() {
  local prefix
  compose_args
  prefix=$(printf '%q ' "${COMPOSE_ARGS[@]}" exec -T mock-api "${API_REQUEST[@]}" --envelope)
  echo "${prefix% }"
}

need_runner() {
  command -v node >/dev/null 2>&1 || die "Node.js 20+ is needed on this machine (node not found)"
  [ -f dist/app/acceptance/cli.js ] || npm run build
  mkdir -p reports
}

cmd_acceptance() {
  local target=${1:-lab}
  [ $# -gt 0 ] && shift
  case "$target" in
    n8n) exec make -C "$ROOT" e2e ;;
    reference | lab) ;;
    *) die "unknown acceptance target '$target' (lab, n8n or reference)" ;;
  esac
  need_runner
  if [ "$target" = reference ]; then
    exec node dist/app/acceptance/cli.js --target reference --report reports/acceptance-reference.json "$@"
  fi
  need_running_api
  load_settings
  exec node dist/app/acceptance/cli.js --target n8n --api-exec "$(exec_prefix)" \
    --n8n "$EDITOR_URL" --resume-origin "$EDITOR_URL" --report reports/acceptance-lab.json "$@"
}

# The stage checker on the running lab: alerts through the editor port, the mock API through its
# container, the execution data through n8n's public API with the lab's key.
cmd_check() {
  [ $# -gt 0 ] || die "usage: docker/lab.sh check STAGE [checker options]"
  local stage=$1
  shift
  need_runner
  need_running_api
  load_settings
  N8N_API_KEY=$(env_value N8N_API_KEY || true) exec node dist/app/acceptance/cli.js check --stage "$stage" \
    --target n8n --api-exec "$(exec_prefix)" --n8n "$EDITOR_URL" --resume-origin "$EDITOR_URL" "$@"
}

main() {
  local cmd=${1:-}
  [ $# -gt 0 ] && shift
  case "$cmd" in
    up) cmd_up ;;
    down) cmd_down ;;
    reset) cmd_reset ;;
    health) need_running_api && api GET /health ;;
    state) need_running_api && api GET /state ;;
    logs) need_docker && compose logs -f --tail=100 "$@" ;;
    api) need_running_api && api "$@" ;;
    exec-prefix) need_docker && exec_prefix ;;
    acceptance) cmd_acceptance "$@" ;;
    check) cmd_check "$@" ;;
    *) die "usage: docker/lab.sh up|down|reset|health|state|logs [service]|api METHOD PATH [JSON]|exec-prefix|acceptance [lab|n8n|reference]|check STAGE" ;;
  esac
}

main "$@"
