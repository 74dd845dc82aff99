# shellcheck shell=bash
# The Docker engine and Compose v2: finding them (one line when either is missing or out of reach), the
# lab's compose command line, and whether the lab's services are up.
#
# Compose v1 (`docker-compose` 1.x, end of life since 2023) is refused: the lab relies on v2's
# `up --wait`, profiles and `run --rm`. An engine before 25.0.4 is refused: the healthchecks probe often
# while a service starts and seldom after (start_interval, Docker Engine 25), so that a class of idle labs
# costs its host little; and 25.0.0 to 25.0.3 forward an internal network's DNS queries to the host's own
# resolvers (CVE-2024-29018), a way out of the lab's internal networks. Developer setting: LAB_COMPOSE_FILES (space-separated, default compose.yaml;
# the engine test adds its stand-ins).

COMPOSE_MIN_MINOR=20
ENGINE_MIN=25.0.4

# engine_at_least VERSION FLOOR: VERSION (major.minor.patch, any suffix after) is FLOOR or later.
engine_at_least() {
  local have want i
  [[ $1 =~ ^([0-9]+)\.([0-9]+)\.([0-9]+) ]] || return 1
  have=("${BASH_REMATCH[@]:1}")
  IFS=. read -r -a want <<<"$2"
  for i in 0 1 2; do
    [ "${have[i]}" -gt "${want[i]}" ] && return 0
    [ "${have[i]}" -lt "${want[i]}" ] && return 1
  done
  return 0
}

need_docker() {
  local err version
  command -v docker >/dev/null 2>&1 ||
    die "Docker is needed: 'docker' was not found (install Docker Engine or Docker Desktop, then retry)"
  if ! err=$(docker info -f '{{.ServerVersion}}' 2>&1 >/dev/null); then
    case "$err" in
      *"permission denied"*)
        die "no permission to use the Docker engine's socket: add your user to the 'docker' group (sudo usermod -aG docker \$USER), log in again, and retry" ;;
      *) die "the Docker engine does not answer: start it (sudo systemctl start docker, or Docker Desktop) and retry (DOCKER_HOST=${DOCKER_HOST:-unset})" ;;
    esac
  fi
  version=$(docker info -f '{{.ServerVersion}}' 2>/dev/null)
  if ! engine_at_least "$version" "$ENGINE_MIN"; then
    die "Docker Engine ${version:-of unknown version} is too old: the lab needs $ENGINE_MIN or later (docker info shows the engine's version)"
  fi
  if ! version=$(docker compose version --short 2>/dev/null); then
    command -v docker-compose >/dev/null 2>&1 &&
      die "Compose v2 is needed ('docker compose'); only Compose v1 (docker-compose, end of life since 2023) was found: install the docker-compose-plugin package"
    die "Docker Compose v2 is needed: 'docker compose' was not found (install the docker-compose-plugin package)"
  fi
  version=${version#v}
  if [[ $version =~ ^2\.([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge "$COMPOSE_MIN_MINOR" ]; then return 0; fi
  [[ $version =~ ^([3-9]|[1-9][0-9])\. ]] || die "Docker Compose $version is too old: the lab needs 2.$COMPOSE_MIN_MINOR or later"
}

# compose ARGS...: docker compose with the lab's project, files and settings file.
compose() {
  local args=(-p "$PROJECT" --project-directory "$ROOT") f files
  read -r -a files <<<"${LAB_COMPOSE_FILES:-compose.yaml}"
  for f in "${files[@]}"; do args+=(-f "$f"); done
  tls_lab_env
  if [ -f "$ENV_FILE" ]; then
    docker compose "${args[@]}" --env-file "$ENV_FILE" "$@"
  else
    # Without a settings file (before `up`, after `down`) the file's required secrets are unset; commands
    # that need none (down, ps, logs) still work with placeholders that no container ever receives.
    POSTGRES_PASSWORD=unset N8N_ENCRYPTION_KEY=unset docker compose "${args[@]}" --env-file /dev/null "$@"
  fi
}

lab_exists() { [ -n "$(compose ps -a -q 2>/dev/null)" ]; }

# Every service runs, healthy where it has a healthcheck.
lab_is_up() {
  local ids expected states
  ids=$(compose ps -q 2>/dev/null) || return 1
  [ -n "$ids" ] || return 1
  expected=$(compose config --services | grep -c .)
  # shellcheck disable=SC2086 # one id a word
  states=$(docker inspect -f '{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{else}}-{{end}}' $ids)
  [ "$(grep -c . <<<"$states")" -ge "$expected" ] && ! grep -vqE '^running (healthy|-)$' <<<"$states"
}

need_running_lab() {
  need_docker
  if [ ! -f "$ENV_FILE" ] || [ -z "$(compose ps -q mock-api 2>/dev/null)" ]; then
    die "$(lab_title) is not running (start it with: make up$LAB_ARG)"
  fi
  load_settings
}

# Starts (or completes) the lab and waits until every service is healthy: compose's own wait, bounded by
# LAB_HEALTH_TIMEOUT (seconds, default 300; raise it on a slow machine's first start).
compose_up_wait() {
  local start=$SECONDS out
  say "waiting until every service of $(lab_title) is healthy (at most ${LAB_HEALTH_TIMEOUT:-300} s)"
  if ! out=$(compose up -d --no-recreate --remove-orphans --wait --wait-timeout "${LAB_HEALTH_TIMEOUT:-300}" 2>&1); then
    echo "$out" | grep -vE ' (Waiting|Healthy|Running)$' >&2
    echo "lab: not every service became healthy within ${LAB_HEALTH_TIMEOUT:-300} s (LAB_HEALTH_TIMEOUT raises it); the last log lines:" >&2
    compose logs --tail=20 >&2 || true
    exit 1
  fi
  say "every service healthy after $(since "$start") s"
}
