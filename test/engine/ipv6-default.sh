# shellcheck shell=bash
# IPv6 off on the lab's networks by the lab itself (sourced by test/engine/run.sh while its lab is up): on
# a second engine that gives every new network IPv6 by default (test/engine/ipv6-engine.sh: Docker 28,
# default-network-opts enable_ipv6), compose makes the lab's networks from compose.yaml as `make up` does,
# and each has EnableIPv6 false, n8n holding no IPv6 address there but link-local. The control, on the same
# engine: a network made without the setting has EnableIPv6 true, and n8n joined to it holds a global one.
#   needs: ROOT, WORK, LAB_ENV_FILE, STAND_IN_IMAGE (on $DOCKER_HOST's engine), STARTED_ENGINE,
#   ENGINE_NETNS, global_v6_of (walls.sh), log and check (test/lib/engine.sh)
# Run by itself (`bash test/engine/ipv6-default.sh`, root; ~30 s once the unpack is cached) it is this part
# alone: the stand-in's image made on that engine, the lab's secrets placeholders. Ends "N passed, N failed".

V6_ENGINE_DIR=""
V6_ENGINE_NETNS=""
V6_PROJECT=soar-lab-etest6

v6_cleanup() {
  [ -n "$V6_ENGINE_DIR" ] || return 0
  bash "$ROOT/test/engine/ipv6-engine.sh" stop "$V6_ENGINE_DIR" "$V6_ENGINE_NETNS" >/dev/null 2>&1 || true
  rm -rf "$V6_ENGINE_DIR"
  V6_ENGINE_DIR=""
}

# v6 COMMAND...: a docker command on the IPv6 engine, with that engine's own client and Compose plugin
# (Docker 28's, Compose 2.40: an older client sends EnableIPv6 false whatever compose.yaml says).
V6_CLIENT=${LAB_CACHE:-$HOME/.cache/soar-lab}/docker-sid
v6() { DOCKER_HOST=$V6_HOST PATH=$V6_CLIENT/root/usr/bin:$PATH DOCKER_CONFIG=$V6_CLIENT/docker-config "$@"; }
v6_compose() {
  v6 timeout 120 docker compose -p "$V6_PROJECT" --project-directory "$ROOT" -f compose.yaml \
    -f test/engine/compose.stand-ins.yaml -f "$WORK/v6-console.yaml" --env-file "$LAB_ENV_FILE" "$@"
}

walls_ipv6_default() {
  local line net n8n console addrs version
  log "the walls: IPv6 off by the lab's own networks, on an engine that gives networks IPv6 by default"
  V6_ENGINE_DIR=$STARTED_ENGINE-v6
  V6_ENGINE_NETNS=${ENGINE_NETNS}6
  if ! line=$(timeout 600 bash test/engine/ipv6-engine.sh start "$V6_ENGINE_DIR" "$V6_ENGINE_NETNS" 1200 2>"$WORK/v6-start.log" | tail -n 1); then
    fail "an engine that gives networks IPv6 by default starts" "$(tail -n 4 "$WORK/v6-start.log" | tr '\n' ' ')"
    return 0
  fi
  V6_HOST=${line#DOCKER_HOST=}
  version="Docker $(v6 docker version -f '{{.Server.Version}}'), its client's Compose $(v6 docker compose version --short)"
  # The setting in effect, not only given: a network made with no option at all gets IPv6.
  v6 docker network create soar-v6-control >/dev/null
  check "control: on that engine ($version), a network made without the setting has EnableIPv6 true" \
    test "$(v6 docker network inspect -f '{{.EnableIPv6}}' soar-v6-control)" = true
  # The console's image is the mock API's, which this engine does not hold: the stand-in runs in its place
  # (only the console's networks matter here).
  printf 'services:\n  console:\n    image: %s\n    entrypoint: [node, /stand-in/stand-in.mjs]\n    command: [n8n]\n' \
    "$STAND_IN_IMAGE" >"$WORK/v6-console.yaml"
  if [ -n "${V6_ALONE:-}" ]; then
    v6 bash "$TOOLS/node-image.sh" local/node-min:20 >/dev/null
    v6 env DOCKER_BUILDKIT=0 timeout 120 docker build -q -t "$STAND_IN_IMAGE" test/engine/stand-in >/dev/null 2>&1
  else
    docker save "$STAND_IN_IMAGE" | v6 docker load -q >/dev/null
  fi
  if ! v6_compose up -d --no-deps --no-build --pull never n8n console >"$WORK/v6-up.log" 2>&1; then
    fail "compose makes the lab's networks on that engine" "$(tail -n 3 "$WORK/v6-up.log" | tr '\n' ' ')"
    return 0
  fi
  for net in lab-internal n8n-backend editor n8n-front; do
    check "network $net, made by compose from compose.yaml there: EnableIPv6 false" \
      test "$(v6 docker network inspect -f '{{.EnableIPv6}}' "${V6_PROJECT}_$net")" = false
  done
  n8n=$(v6 docker ps -q --filter "label=com.docker.compose.project=$V6_PROJECT" --filter label=com.docker.compose.service=n8n)
  addrs=$(v6 global_v6_of "$n8n" | tr '\n' ' ')
  check "n8n there holds no IPv6 address but loopback and link-local, not even a global one (${addrs:-none})" test -z "$addrs"
  console=$(v6 docker ps -q --filter "label=com.docker.compose.project=$V6_PROJECT" --filter label=com.docker.compose.service=console)
  addrs=$(v6 global_v6_of "$console" | tr '\n' ' ')
  check "the console there likewise (${addrs:-none})" test -z "$addrs"
  v6 docker network connect soar-v6-control "$n8n"
  addrs=$(v6 global_v6_of "$n8n" | tr '\n' ' ')
  check "control: n8n joined to the network made without the setting holds a global IPv6 address (${addrs:-none})" \
    test -n "$addrs"
  v6 docker network disconnect soar-v6-control "$n8n"
  v6_compose down -v >/dev/null 2>&1 || true
  v6 docker network rm soar-v6-control >/dev/null 2>&1 || true
  v6_cleanup
}

# --- by itself ---------------------------------------------------------------------------------------
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  cd "$ROOT"
  WORK=$(mktemp -d /tmp/soar-lab-ipv6.XXXXXX)
  LOG_TAG=ipv6-default
  # shellcheck source=../lib/engine.sh
  . test/lib/engine.sh
  # shellcheck source=walls.sh
  . test/engine/walls.sh
  trap 'v6_cleanup; rm -rf "$WORK"' EXIT
  V6_ALONE=1
  STAND_IN_IMAGE=soar-lab/stand-in:engine-test
  STARTED_ENGINE=${LAB_ENGINE_DIR:-/tmp/soar-lab-engine}
  ENGINE_NETNS=${LAB_ENGINE_NETNS:-soar-lab-engine}
  LAB_ENV_FILE=$WORK/lab.env
  printf 'POSTGRES_PASSWORD=placeholder\nN8N_ENCRYPTION_KEY=placeholder\n' >"$LAB_ENV_FILE"
  walls_ipv6_default
  summary
fi
