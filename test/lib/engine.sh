# shellcheck shell=bash
# Shared by the scripts that prove the lab on a real Docker engine (test/engine/run.sh, test/lab/run.sh):
# the check counters, the compose client, a private engine when $DOCKER_HOST has none, and the mock API's
# image from prepared artefacts (no registry can be reached from inside the engine). Source it; it
# defines functions and a few variables and starts nothing by itself.
#   needs: ROOT (the repository), WORK (a scratch folder the caller removes), LOG_TAG (prefix of log lines)

TOOLS=${LAB_ENGINE_TOOLS:-$ROOT/../shared/tools/docker-engine}
PASSED=0
FAILED=0
STARTED_ENGINE=""
ENGINE_NETNS=""

log() { printf '[%s %5ss] %s\n' "$LOG_TAG" "$SECONDS" "$*"; }
pass() {
  PASSED=$((PASSED + 1))
  printf '  ok    %s\n' "$1"
}
fail() {
  FAILED=$((FAILED + 1))
  printf '  FAIL  %s%s\n' "$1" "${2:+: $2}"
}
check() { # check NAME COMMAND...: passes when the command exits 0
  local name=$1
  shift
  local out
  if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "$(tail -n 3 <<<"$out" | tr '\n' ' ')"; fi
}
refute() { # refute NAME COMMAND...: passes when the command fails
  local name=$1
  shift
  local out
  if out=$("$@" 2>&1); then
    fail "$name" "unexpectedly succeeded: $(tail -n 2 <<<"$out" | tr '\n' ' ')"
  else
    pass "$name ($(tail -n 1 <<<"$out" | cut -c1-90))"
  fi
}
summary() { # the plain closing line CI reads; exit status 1 when a check failed
  echo "$PASSED passed, $FAILED failed"
  [ "$FAILED" = 0 ]
}

engine_answers() { [ -n "${DOCKER_HOST:-}" ] && command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; }

# start_engine DIR NETNS: the engine at $DOCKER_HOST when it answers, else a private one in DIR, in its own
# network namespace NETNS (stopped by stop_engine): Debian 13's Docker 26.1 with the Compose v2 and buildx
# plugins, what trainers run. Puts that engine's own client first on PATH, with its plugins.
start_engine() {
  if engine_answers; then
    log "using the engine at DOCKER_HOST=$DOCKER_HOST"
    docker compose version >/dev/null 2>&1 || { echo "$LOG_TAG: that engine's client has no Compose v2 plugin" >&2; exit 1; }
    return 0
  fi
  if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null 2>&1; then
    echo "$LOG_TAG: no engine at DOCKER_HOST, and a private one needs root and ip" >&2
    exit 1
  fi
  [ -f "$TOOLS/start.sh" ] || { echo "$LOG_TAG: no engine and no $TOOLS/start.sh" >&2; exit 1; }
  STARTED_ENGINE=$1
  ENGINE_NETNS=$2
  # An engine left over from an interrupted run would share our data root: stop it first.
  LAB_ENGINE_DIR=$STARTED_ENGINE LAB_ENGINE_NETNS=$ENGINE_NETNS bash "$TOOLS/stop.sh" >/dev/null 2>&1 || true
  log "starting a private engine ($STARTED_ENGINE, netns $ENGINE_NETNS)"
  local line
  line=$(LAB_ENGINE_DEBIAN=trixie LAB_ENGINE_DIR=$STARTED_ENGINE LAB_ENGINE_NETNS=$ENGINE_NETNS bash "$TOOLS/start.sh" 7200 | tail -n 1)
  export "${line?}"
  export PATH=$STARTED_ENGINE/root/usr/bin:$PATH DOCKER_CONFIG=$STARTED_ENGINE/docker-config
  log "engine $(docker version -f '{{.Server.Version}}'), compose $(docker compose version --short)"
}

stop_engine() {
  [ -n "$STARTED_ENGINE" ] || return 0
  LAB_ENGINE_DIR=$STARTED_ENGINE LAB_ENGINE_NETNS=$ENGINE_NETNS bash "$TOOLS/stop.sh" >/dev/null 2>&1 || true
}

# The mock API image is built from the Dockerfile with BuildKit, which skips the build stage that cannot
# run inside the engine (no registry there). Clients before 23 have BuildKit built in; later ones need
# the buildx plugin.
require_buildkit() {
  local client
  client=$(docker version -f '{{.Client.Version}}' 2>/dev/null || echo 0)
  if [ "${client%%.*}" -ge 23 ] && ! docker buildx version >/dev/null 2>&1; then
    echo "$LOG_TAG: docker $client builds with BuildKit only with the buildx plugin, which is missing" >&2
    exit 1
  fi
  export DOCKER_BUILDKIT=1 COMPOSE_DOCKER_CLI_BUILD=1
}

# mock_api_artefacts BASE_TAG ARTEFACTS_TAG: the Node base (the host's node binary, node-image.sh) and this
# checkout's dist/ with its production node_modules (npm ci --omit=dev on the host, which reaches the
# npm registry) as an image the Dockerfile's APP_ARTEFACTS copies /app from. Exports what compose.yaml's
# build arguments read.
mock_api_artefacts() {
  local base=$1 artefacts=$2
  bash "$TOOLS/node-image.sh" "$base" >/dev/null
  rm -rf "$WORK/artefacts"
  mkdir -p "$WORK/artefacts/app/reports"
  cp package.json package-lock.json "$WORK/artefacts/app/"
  cp -R dist "$WORK/artefacts/app/dist"
  (cd "$WORK/artefacts/app" && timeout 300 npm ci --omit=dev --ignore-scripts --no-audit --no-fund >/dev/null)
  rm -f "$WORK/artefacts/app/package-lock.json"
  tar -C "$WORK/artefacts" -c app | docker import - "$artefacts" >/dev/null
  export NODE_IMAGE=$base APP_ARTEFACTS=$artefacts
}

# container_of PROJECT SERVICE: a service's container, by the labels compose puts on it.
container_of() {
  docker ps -q --filter "label=com.docker.compose.project=$1" --filter "label=com.docker.compose.service=$2"
}

# check_nothing_left PROJECT ENV_FILE: after `make down`, nothing of the project is left, and its settings
# file with the generated secrets is gone.
check_nothing_left() {
  local label="label=com.docker.compose.project=$1"
  check "down leaves no container ($1)" test -z "$(docker ps -aq --filter "$label")"
  check "down leaves no network ($1)" test -z "$(docker network ls -q --filter "$label")"
  check "down leaves no volume ($1)" test -z "$(docker volume ls -q --filter "$label")"
  check "down removes the settings and secrets (${2#"$ROOT"/})" test ! -e "$2"
}
