#!/usr/bin/env bash
# The appliance proven on a real Docker engine (`make test-engine`, after `npm run build`).
#
# Builds the mock API's image from the Dockerfile, brings the compose topology up with docker/lab.sh
# (the same commands as `make up`), proves n8n -> mock API by service name, that nothing outside
# the internal network reaches it, that neither it nor n8n has egress, that n8n's editor reaches the host
# only through the console's gate and that n8n cannot reach the console, that its hardening is in effect inside the
# container, that `make reset` / `make health` work and that `make down` leaves nothing behind; reports
# the time from up to healthy. Images that cannot be pulled here (n8n, Postgres) run as stand-ins
# (test/engine/compose.stand-ins.yaml); the mock API and the networks are exactly compose.yaml's.
#
# Engine: $DOCKER_HOST when it answers; otherwise a private engine from ../shared/tools/docker-engine
# (root and `ip netns` needed), stopped again at the end. Every step that could hang is bounded by `timeout`.
# Ends with the line "N passed, N failed".
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
WORK=$(mktemp -d /tmp/soar-lab-engine-test.XXXXXX)
LOG_TAG=engine-test
# shellcheck source=../lib/engine.sh
. test/lib/engine.sh
# shellcheck source=walls.sh
. test/engine/walls.sh
# shellcheck source=restarts.sh
. test/engine/restarts.sh
# shellcheck source=ipv6-default.sh
. test/engine/ipv6-default.sh
# shellcheck source=../lib/reach.sh
. test/lib/reach.sh
# A named lab of its own (project soar-lab-etest, settings in labs/etest.env), on the lab's default slot.
export LAB=etest LAB_SUBNET=172.30.66.0/24 LAB_EDITOR_PORT=5678 LAB_CONSOLE_PORT=8088
PROJECT=soar-lab-$LAB
LAB_ENV_FILE=$ROOT/labs/$LAB.env
export LAB_COMPOSE_FILES="compose.yaml test/engine/compose.stand-ins.yaml"
export LAB_HEALTH_TIMEOUT=${LAB_HEALTH_TIMEOUT:-180}
BASE_IMAGE=local/node-min:20
STAND_IN_IMAGE=soar-lab/stand-in:engine-test
ARTEFACTS_IMAGE=soar-lab/mock-api-artefacts:engine-test
OUTSIDE_NET=soar-lab-etest-outside
OUTSIDE_BOX=soar-lab-etest-outside-box

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  walls_cleanup
  v6_cleanup
  if engine_answers; then
    LAB_FORCE_DOWN=1 timeout 120 bash docker/lab.sh down >/dev/null 2>&1 || true
    docker rm -f "$OUTSIDE_BOX" >/dev/null 2>&1 || true
    docker network rm "$OUTSIDE_NET" >/dev/null 2>&1 || true
  fi
  stop_engine
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- prerequisites -------------------------------------------------------------------------------
[ -f dist/app/api/main.js ] || { echo "engine-test: dist/app/api/main.js missing: run npm run build first" >&2; exit 1; }
start_engine "${LAB_ENGINE_DIR:-/tmp/soar-lab-engine}" "${LAB_ENGINE_NETNS:-soar-lab-engine}"
require_buildkit

# --- images ----------------------------------------------------------------------------------------
log "base image, the production artefacts and the stand-ins"
mock_api_artefacts "$BASE_IMAGE" "$ARTEFACTS_IMAGE"
timeout 120 docker build -q -t "$STAND_IN_IMAGE" --build-arg BASE="$BASE_IMAGE" test/engine/stand-in >/dev/null
# The walls' image: its base cannot be pulled here; a look-alike from Debian's packages (cached).
timeout 900 bash test/lab/images/build.sh walls 2>&1 | sed -u 's/^/        /'

# --- up --------------------------------------------------------------------------------------------
log "make up (docker/lab.sh up): build from the Dockerfile, start, wait until healthy"
up_start=$SECONDS
if ! timeout $((LAB_HEALTH_TIMEOUT + 300)) bash docker/lab.sh up >"$WORK/up.log" 2>&1; then
  cat "$WORK/up.log"
  fail "make up brings the lab up healthy"
  summary
fi
UP_SECONDS=$((SECONDS - up_start))
HEALTHY_SECONDS=$(sed -n 's/.*every service healthy after \([0-9]*\) s.*/\1/p' "$WORK/up.log")
pass "make up brings the lab up healthy (build + start + healthy in ${UP_SECONDS} s)"
grep -E 'healthy after|owner|lab is up' "$WORK/up.log" | sed 's/^/        /'

API=$(container_of "$PROJECT" mock-api)
N8N=$(container_of "$PROJECT" n8n)
CONSOLE=$(container_of "$PROJECT" console)
PG=$(container_of "$PROJECT" postgres)
IMAGE_SIZE=$(docker image inspect -f '{{.Size}}' soar-lab/mock-api:1.2.0)
INTERNAL_NET=${PROJECT}_lab-internal
API_IP=$(docker inspect -f "{{(index .NetworkSettings.Networks \"$INTERNAL_NET\").IPAddress}}" "$API")

# node -e inside a container: fetch URL within 3 s, exit 0 on a 2xx answer, print status or error.
FETCH='process.on("beforeExit",()=>{console.log("closed without an answer");process.exit(1)});const u=process.argv[1];fetch(u,{signal:AbortSignal.timeout(3000)}).then(async r=>{console.log(r.status,(await r.text()).slice(0,200));process.exit(r.ok?0:1)},e=>{console.log("error",e.cause?.code??e.name);process.exit(1)})'
fetch_in() { timeout 20 docker exec "$1" node -e "$FETCH" "$2"; }

# --- the mock API's container as configured --------------------------------------------------------
log "the mock API's container"
inspect() { docker inspect -f "$2" "$1"; }
# Go templates of docker inspect (their $ are the template's, not the shell's).
# shellcheck disable=SC2016
PUBLISHED='{{range $p, $b := .NetworkSettings.Ports}}{{if $b}}{{$p}}{{end}}{{end}}'
# shellcheck disable=SC2016
NETWORKS='{{range $n, $_ := .NetworkSettings.Networks}}{{$n}} {{end}}'
# shellcheck disable=SC2016
BINDINGS='{{range $p, $b := .NetworkSettings.Ports}}{{range $b}}{{$p}}={{.HostIp}}:{{.HostPort}} {{end}}{{end}}'
check "mock API publishes no port" test -z "$(inspect "$API" "$PUBLISHED")"
check "n8n publishes no port" test -z "$(inspect "$N8N" "$PUBLISHED")"
check "mock API is on the internal network only" test "$(inspect "$API" "$NETWORKS")" = "$INTERNAL_NET "
n8n_internal_only() {
  local net
  for net in $(inspect "$N8N" "$NETWORKS"); do
    echo "        $net internal: $(docker network inspect -f '{{.Internal}}' "$net")"
    [ "$(docker network inspect -f '{{.Internal}}' "$net")" = true ] || return 1
  done
}
check "n8n, which runs the workflows, is on internal networks only" n8n_internal_only
check "the generated secrets file is private (mode 600)" test "$(stat -c %a "$LAB_ENV_FILE")" = 600
check "the lab network is internal: true" test "$(docker network inspect -f '{{.Internal}}' "$INTERNAL_NET")" = true
check "read-only root, cap_drop ALL, no-new-privileges, uid 1000 (inspect)" test \
  "$(inspect "$API" '{{.HostConfig.ReadonlyRootfs}} {{.HostConfig.CapDrop}} {{.HostConfig.SecurityOpt}} {{.Config.User}}')" \
  = "true [ALL] [no-new-privileges:true] 1000:1000"
read -r mem pids <<<"$(inspect "$API" '{{.HostConfig.Memory}} {{.HostConfig.PidsLimit}}')"
check "memory and pids limits set ($((mem / 1048576)) MiB, $pids pids)" test "$mem" -gt 0 -a "$pids" -gt 0

# --- hardening in effect inside the container ----------------------------------------------------------
HARDENING='const fs=require("fs");const s=fs.readFileSync("/proc/self/status","utf8");const f=k=>s.match(new RegExp("^"+k+":\\s*(.*)$","m"))[1].trim().split(/\s+/).join(" ");
const ro=p=>{try{fs.writeFileSync(p,"x");fs.unlinkSync(p);return "writable"}catch(e){return e.code}};
console.log(JSON.stringify({uid:f("Uid"),gid:f("Gid"),capEff:f("CapEff"),capPrm:f("CapPrm"),capBnd:f("CapBnd"),nnp:f("NoNewPrivs"),root:ro("/probe"),app:ro("/app/probe"),tmp:ro("/tmp/probe")}))'
hardening=$(timeout 20 docker exec "$API" node -e "$HARDENING")
echo "        inside: $hardening"
has() { grep -q "$1" <<<"$hardening"; }
check "runs as uid/gid 1000 (not root)" has '"uid":"1000 1000 1000 1000","gid":"1000 1000 1000 1000"'
check "no capabilities (effective, permitted, bounding)" has '"capEff":"0000000000000000","capPrm":"0000000000000000","capBnd":"0000000000000000"'
check "no-new-privileges in effect" has '"nnp":"1"'
check "root filesystem read-only (/ and /app: EROFS), /tmp writable" has '"root":"EROFS","app":"EROFS","tmp":"writable"'

# --- who reaches the mock API --------------------------------------------------------------------------
log "reachability"
check "n8n -> mock API by service name (http://mock-api:8081/health)" fetch_in "$N8N" http://mock-api:8081/health
control_reach "control: n8n reaches the mock API by its address $API_IP" reach_in "$N8N" "http://$API_IP:8081/health"
refute_reach "postgres (backend network) -> mock API by address" reach_in "$PG" "http://$API_IP:8081/health"
docker network create "$OUTSIDE_NET" >/dev/null
docker run -d --name "$OUTSIDE_BOX" --network "$OUTSIDE_NET" --read-only --cap-drop ALL "$BASE_IMAGE" \
  node -e 'require("http").createServer((q,s)=>s.end("outside")).listen(8080,"0.0.0.0")' >/dev/null
OUTSIDE_IP=$(docker inspect -f "{{(index .NetworkSettings.Networks \"$OUTSIDE_NET\").IPAddress}}" "$OUTSIDE_BOX")
refute_reach "a container on another network -> mock API by address" reach_in "$OUTSIDE_BOX" "http://$API_IP:8081/health"
CONSOLE_IP=$(docker inspect -f "{{(index .NetworkSettings.Networks \"${PROJECT}_editor\").IPAddress}}" "$CONSOLE")
control_reach "control: the console answers at its address $CONSOLE_IP:8088 (from the console)" reach_in "$CONSOLE" "http://$CONSOLE_IP:8088/api/session"
refute_reach "a container on another network -> console by address" reach_in "$OUTSIDE_BOX" "http://$CONSOLE_IP:8088/api/session"
if [ -n "$STARTED_ENGINE" ]; then
  # The engine's own namespace routes to the bridge; the API's client allowlist still refuses it.
  in_engine() { timeout 20 nsenter --net="/var/run/netns/$ENGINE_NETNS" node -e "$FETCH" "$1"; }
  in_engine_reach() { timeout 20 nsenter --net="/var/run/netns/$ENGINE_NETNS" node -e "$REACH" "$1"; }
  # The lab network's bridge holds no address of the host (inhibit_ipv4): the host has no route to it.
  refute_reach "the engine host -> mock API by address" in_engine_reach "http://$API_IP:8081/health"
  control_reach "control: the engine host reaches the console by its address on the editor network, whose bridge holds the host's" \
    in_engine_reach "http://$CONSOLE_IP:8088/api/session"
  check "n8n editor published on 127.0.0.1:5678 through the console's gate (engine host)" in_engine http://127.0.0.1:5678/healthz
fi

if [ -n "$STARTED_ENGINE" ]; then
  walls_gateways
  walls_routed_client
  walls_ipv6
  walls_ipv6_default
  walls_dns
fi

# --- the lab console: its own way to the mock API is the socket volume, never the network ---------------
log "the lab console"
CONSOLE_PORT=${LAB_CONSOLE_PORT:-8088}
check "the console and its editor gate are published on 127.0.0.1 only" test \
  "$(inspect "$CONSOLE" "$BINDINGS")" = "5678/tcp=127.0.0.1:5678 8088/tcp=127.0.0.1:$CONSOLE_PORT "
check "the console is not on the internal network" bash -c \
  "! docker inspect -f '{{range \$n, \$_ := .NetworkSettings.Networks}}{{\$n}} {{end}}' $CONSOLE | grep -q '$INTERNAL_NET'"
check "the console: read-only root, cap_drop ALL, no-new-privileges, uid 1000" test \
  "$(inspect "$CONSOLE" '{{.HostConfig.ReadonlyRootfs}} {{.HostConfig.CapDrop}} {{.HostConfig.SecurityOpt}} {{.Config.User}}')" \
  = "true [ALL] [no-new-privileges:true] 1000:1000"
control_reach "control: n8n reaches the mock API by service name" reach_in "$N8N" http://mock-api:8081/health
refute_reach "console -> mock API by service name" reach_in "$CONSOLE" http://mock-api:8081/health
refute_reach "console -> mock API by address $API_IP" reach_in "$CONSOLE" "http://$API_IP:8081/health"
# Its own /api/state: the mock API's state, fetched through the socket (source unix:..., no error).
# A named lab's console asks for the lab's secret: signed in with it (SECRET), then its state.
CONSOLE_STATE='const b="http://127.0.0.1:8088",t=AbortSignal.timeout(5000);fetch(b+"/login",{method:"POST",signal:t,redirect:"manual",headers:{"content-type":"application/x-www-form-urlencoded",origin:b},body:"secret="+encodeURIComponent(process.env.SECRET)}).then(r=>fetch(b+"/api/state",{signal:t,headers:{cookie:(r.headers.get("set-cookie")||"").split(";")[0]}})).then(r=>r.json()).then(v=>{console.log(v.source,v.error,v.state&&v.state.case_mode);process.exit(v.error===null&&v.source.startsWith("unix:")&&v.state?0:1)},e=>{console.log("error",e.message);process.exit(1)})'
check "console serves the mock API's state through the socket, signed in with the lab's secret" \
  timeout 20 docker exec -e SECRET="$(sed -n 's/^CONSOLE_SECRET=//p' "$LAB_ENV_FILE")" "$CONSOLE" node -e "$CONSOLE_STATE"
refute "control: the same with a wrong secret" timeout 20 docker exec -e SECRET=not-the-lab-secret "$CONSOLE" node -e "$CONSOLE_STATE"
check "the socket file is the service user's, mode 600" bash -c \
  "docker exec $API node -e 'const s=require(\"fs\").statSync(\"/run/mock-api/api.sock\");console.log(s.uid,(s.mode&0o777).toString(8));process.exit(s.uid===1000&&(s.mode&0o777)===0o600?0:1)'"
check "console -> n8n by service name (for approvals)" fetch_in "$CONSOLE" http://n8n:5678/healthz
check "control: the console's gate answers inside the console" fetch_in "$CONSOLE" http://127.0.0.1:5678/healthz
# n8n reaches the console's ports (it must reach the gate's target's network), and is answered nothing:
# the console closes every connection from n8n-front (CONSOLE_REFUSED_CLIENTS) as it accepts it.
answers_with_status() { reach_in "$1" "$2" | grep '^reached: answered "HTTP/1.1 '; }
check "control: the console answers itself at console:8088 with a status line" answers_with_status "$CONSOLE" http://console:8088/api/session
check "n8n -> the console (console:8088): connected, closed without a status line (CONSOLE_REFUSED_CLIENTS)" \
  closed_unanswered "$N8N" http://console:8088/api/session
check "n8n -> the console's gate (console:5678): connected, closed without a status line (likewise)" \
  closed_unanswered "$N8N" http://console:5678/healthz
refute "n8n (lab network) has no socket volume" timeout 20 docker exec "$N8N" node -e \
  'require("fs").statSync("/run/mock-api/api.sock")'
if [ -n "$STARTED_ENGINE" ]; then
  # FETCH exits 1 on the 401 it must see (pipefail would take that for the pipeline's): its line is read.
  console_guarded() {
    local said
    said=$(timeout 20 nsenter --net="/var/run/netns/$ENGINE_NETNS" node -e "$FETCH" "http://127.0.0.1:$CONSOLE_PORT/api/session" || true)
    echo "$said"
    grep -q '^401 ' <<<"$said"
  }
  check "console published on 127.0.0.1:$CONSOLE_PORT (engine host), asking for the lab's secret (401)" console_guarded
fi

# --- egress ----------------------------------------------------------------------------------------
log "egress"
control_reach "control: the outside server answers inside its own network" reach_in "$OUTSIDE_BOX" "http://$OUTSIDE_IP:8080/"
refute_reach "mock API -> outside server (no egress)" reach_in "$API" "http://$OUTSIDE_IP:8080/"
refute_reach "n8n -> outside server (no egress)" reach_in "$N8N" "http://$OUTSIDE_IP:8080/"

if [ -n "$STARTED_ENGINE" ]; then
  walls_reboot
  walls_engine_restart
fi

# --- operator commands ---------------------------------------------------------------------------------
log "operator commands (make health / reset / state)"
check "make health: case_mode healthy, through the container" bash -c \
  "timeout 30 make -s --no-print-directory health | grep -q '\"case_mode\": *\"healthy\"'"
check "make reset answers reset: true" bash -c "timeout 30 make -s --no-print-directory reset | grep -q '\"reset\": *true'"
check "make state answers the destination state" bash -c "timeout 30 make -s --no-print-directory state | grep -q '\"cases\"'"
check "lab.sh api POST /control/case-mode sets the mode" bash -c \
  "bash docker/lab.sh api POST /control/case-mode '{\"mode\":\"fail_next_write\"}' | grep -q '\"case_mode\": *\"fail_next_write\"'"

# --- the tools container: what make check, acceptance and solution run in ------------------------------
log "the tools container (compose run --rm tools)"
tools_node() {
  timeout 60 docker compose -p "$PROJECT" --project-directory "$ROOT" -f compose.yaml -f test/engine/compose.stand-ins.yaml \
    --env-file "$LAB_ENV_FILE" run --rm -T --no-deps tools node -e "$@"
}
SOCKET_HEALTH='require("http").get({socketPath:"/run/mock-api/api.sock",path:"/health",headers:{host:"mock-api"}},r=>{console.log(r.statusCode);process.exit(r.statusCode===200?0:1)}).on("error",e=>{console.log(e.code);process.exit(1)})'
check "tools -> the mock API through its socket" tools_node "$SOCKET_HEALTH"
refute_reach "tools -> the mock API by service name" tools_node "$REACH" http://mock-api:8081/health
check "tools -> n8n by service name" tools_node 'fetch("http://n8n:5678/healthz").then(r=>process.exit(r.ok?0:1),()=>process.exit(1))'
check "tools: uid 1000, read-only root, no capabilities" tools_node \
  'const s=require("fs").readFileSync("/proc/self/status","utf8");let w="writable";try{require("fs").writeFileSync("/x","")}catch(e){w=e.code}process.exit(/Uid:\s+1000\s+1000/.test(s)&&/CapEff:\s+0{16}/.test(s)&&w==="EROFS"?0:1)'
nothing_listens_said_once() {
  local out
  out=$(timeout 120 make -s --no-print-directory check STAGE=webhook 2>&1) && return 1
  grep -i 'nothing listens' <<<"$out" | cut -c1-120
  [ "$(grep -ci 'nothing listens' <<<"$out")" = 1 ] && ! grep -q '^FAIL' <<<"$out"
}
check "make check STAGE=webhook in the lab's tools container: nothing listens on the stand-in, said in one line" nothing_listens_said_once

# --- SIGTERM and down -----------------------------------------------------------------------------------
log "stop and down"
stop_start=$(date +%s%N)
docker stop -t 10 "$API" >/dev/null
STOP_MS=$((($(date +%s%N) - stop_start) / 1000000))
# The process's own exit apart from the engine's teardown (both are in STOP_MS).
EXIT_MS=$((($(date -d "$(inspect "$API" '{{.State.FinishedAt}}')" +%s%N) - stop_start) / 1000000))
check "mock API stops on SIGTERM within 3 s (${STOP_MS} ms; the process exited after ${EXIT_MS} ms), exit code 0" test "$STOP_MS" -lt 3000 -a "$(inspect "$API" '{{.State.ExitCode}}')" = 0
# The stand-in n8n has no CLI to export with: the save fails, so make down refuses and removes nothing.
down_refused() {
  local out rc=0
  out=$(timeout 300 make -s --no-print-directory down 2>&1) || rc=$?
  tail -n 2 <<<"$out"
  [ "$rc" != 0 ] && grep -q 'LAB_FORCE_DOWN=1' <<<"$out" && [ -f "$LAB_ENV_FILE" ] &&
    [ -n "$(docker ps -q --filter "label=com.docker.compose.project=$PROJECT")" ]
}
check "make down: the save fails on the stand-in n8n, so it refuses, names LAB_FORCE_DOWN=1 and removes nothing" down_refused
check "make down LAB_FORCE_DOWN=1 removes it all the same" timeout 300 make -s --no-print-directory down LAB_FORCE_DOWN=1
check_nothing_left "$PROJECT" "$LAB_ENV_FILE"

echo
echo "engine test: up->healthy ${HEALTHY_SECONDS:-?} s (make up with the image build: ${UP_SECONDS} s); mock API image $((IMAGE_SIZE / 1000000)) MB" \
  "on $BASE_IMAGE; SIGTERM stop ${STOP_MS} ms; total ${SECONDS} s"
summary
