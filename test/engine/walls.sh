# shellcheck shell=bash
# The lab's walls on the engine (sourced by test/engine/run.sh once the lab is up): n8n reaches no address
# of the host (a listener on the engine host's 0.0.0.0, probed at each lab network's gateway), and a
# "classroom client" (a network namespace of this test's own, routing the lab's /24 through the engine's
# namespace) reaches no container of the lab, while the ports published on the engine host still answer.
# Each probe is shown to reach its target with its wall removed: n8n on an internal network whose bridge
# has the host's address (the engine's default), and the client with the walls service stopped.
#   needs: the lab up, N8N and CONSOLE (container ids), PROJECT, FETCH and fetch_in (run.sh), a private
#   engine (STARTED_ENGINE, ENGINE_NETNS: its iptables and its namespace)

WALLS_CLIENT_NETNS=soar-etest-client
WALLS_HOST_PORT=18999
WALLS_PROBE_NET=soar-lab-etest-gateway-probe
WALLS_LISTENER_PID=""

# A second lab, published on the engine host's classroom-side address (LAB_BIND: LAN mode).
WALLS_LAN_LAB=etestlan

walls_cleanup() {
  [ -n "$WALLS_LISTENER_PID" ] && kill "$WALLS_LISTENER_PID" 2>/dev/null
  WALLS_LISTENER_PID=""
  if engine_answers && [ -f "$ROOT/labs/$WALLS_LAN_LAB.env" ]; then
    LAB=$WALLS_LAN_LAB LAB_FORCE_DOWN=1 timeout 120 nsenter --net="/var/run/netns/$ENGINE_NETNS" bash docker/lab.sh down >/dev/null 2>&1 || true
  fi
  ip netns del "$WALLS_CLIENT_NETNS" 2>/dev/null || true
  if engine_answers; then
    [ -z "${N8N:-}" ] || docker network disconnect -f "$WALLS_PROBE_NET" "$N8N" >/dev/null 2>&1 || true
    docker network rm "$WALLS_PROBE_NET" >/dev/null 2>&1 || true
  fi
  return 0
}

in_engine_ns() { nsenter --net="/var/run/netns/$ENGINE_NETNS" "$@"; }
in_client_ns() { timeout 20 nsenter --net="/var/run/netns/$WALLS_CLIENT_NETNS" node -e "$FETCH" "$1"; }

# The address NUMBER places after the start of the lab's /24 (172.30.66.0/24 in this test).
lab_address() { echo "172.30.66.$1"; }

walls_gateways() {
  local net host_addrs
  log "the walls: n8n reaches no address of the host"
  # A listener on every address of the engine host, as sshd or a development server would be.
  in_engine_ns node -e "require('http').createServer((q,s)=>s.end('host')).listen($WALLS_HOST_PORT,'0.0.0.0')" &
  WALLS_LISTENER_PID=$!
  sleep 1
  check "control: the host's listener answers on the host" in_engine_ns node -e "$FETCH" "http://127.0.0.1:$WALLS_HOST_PORT/"
  for net in i b f; do
    host_addrs=$(in_engine_ns ip -4 -o addr show dev "soar-ac1e42-$net" 2>&1 | awk '{print $4}')
    check "the bridge of an internal network (soar-ac1e42-$net) holds no address of the host" test -z "$host_addrs"
  done
  # Each network's gateway, the host's address where a network has one (.1, .65, .129, .193).
  for net in 1 65 129 193; do
    refute "n8n -> the host's listener at the gateway $(lab_address "$net")" fetch_in "$N8N" "http://$(lab_address "$net"):$WALLS_HOST_PORT/"
  done
  # Control: an internal network as Docker makes it by default: its bridge holds the host's address.
  docker network create --internal --subnet 172.30.99.0/24 "$WALLS_PROBE_NET" >/dev/null
  docker network connect "$WALLS_PROBE_NET" "$N8N"
  check "control: n8n on an internal network without inhibit_ipv4 reaches the host's listener at its gateway" \
    fetch_in "$N8N" "http://172.30.99.1:$WALLS_HOST_PORT/"
  docker network disconnect "$WALLS_PROBE_NET" "$N8N"
  docker network rm "$WALLS_PROBE_NET" >/dev/null
  kill "$WALLS_LISTENER_PID" 2>/dev/null
  WALLS_LISTENER_PID=""
}

# The client: a namespace with a veth pair into the engine's, 10.250.0.2/30 routing the lab's /24 via
# the engine's end, 10.250.0.1 (the trainer's machine, seen from the classroom).
walls_client_up() {
  ip netns del "$WALLS_CLIENT_NETNS" 2>/dev/null || true
  ip netns add "$WALLS_CLIENT_NETNS"
  ip link add soar-wc0 type veth peer name soar-wc1
  ip link set soar-wc0 netns "$ENGINE_NETNS"
  ip link set soar-wc1 netns "$WALLS_CLIENT_NETNS"
  in_engine_ns ip addr add 10.250.0.1/30 dev soar-wc0
  in_engine_ns ip link set soar-wc0 up
  ip -n "$WALLS_CLIENT_NETNS" addr add 10.250.0.2/30 dev soar-wc1
  ip -n "$WALLS_CLIENT_NETNS" link set soar-wc1 up
  ip -n "$WALLS_CLIENT_NETNS" link set lo up
  ip -n "$WALLS_CLIENT_NETNS" route add 172.30.66.0/24 via 10.250.0.1
}

# Any answer is the console's (its Host check answers 421 to an address it is not published on).
client_reaches() {
  local said
  said=$(in_client_ns "$1" || true)
  echo "$said"
  grep -qE '^[0-9]{3} ' <<<"$said"
}
walls_healthy() { [ "$(docker inspect -f '{{.State.Health.Status}}' "$(container_of "$PROJECT" walls)")" = healthy ]; }
walls_all_back() { [ "$(walls_rules)" = 4 ]; }
# The walls' rules of one lab (by its bridges' prefix) in the engine's raw table.
walls_rules_of() { in_engine_ns "$STARTED_ENGINE/bin/iptables" -w -t raw -S PREROUTING | grep -c "soar-lab:$1" || true; }
walls_rules() { walls_rules_of soar-ac1e42; }

walls_routed_client() {
  local console_ip walls
  log "the walls: a routed classroom client reaches no container of the lab"
  walls=$(container_of "$PROJECT" walls)
  check "the walls service runs, healthy" walls_healthy
  check "its four rules are in the engine's raw table ($(walls_rules))" test "$(walls_rules)" = 4
  check "the walls service: the host's network, root with NET_ADMIN and NET_RAW only, read-only root, no-new-privileges" test \
    "$(docker inspect -f '{{.HostConfig.NetworkMode}} {{.Config.User}} {{.HostConfig.CapDrop}} {{.HostConfig.CapAdd}} {{.HostConfig.ReadonlyRootfs}} {{.HostConfig.SecurityOpt}}' "$walls")" \
    = "host 0:0 [ALL] [NET_ADMIN NET_RAW] true [no-new-privileges:true]"
  walls_client_up
  console_ip=$(docker inspect -f "{{(index .NetworkSettings.Networks \"${PROJECT}_editor\").IPAddress}}" "$CONSOLE")
  refute "client -> the console by its address $console_ip:8088" in_client_ns "http://$console_ip:8088/api/session"
  refute "client -> the editor gate by its address $console_ip:5678" in_client_ns "http://$console_ip:5678/healthz"
  refute "client -> the mock API by its address $(lab_address 2):8081" in_client_ns "http://$(lab_address 2):8081/health"
  check "the console is still published on the engine host's loopback" in_engine_ns node -e "$FETCH" "http://127.0.0.1:5678/healthz"
  # The wall removed: the walls service stopped takes its rules away, and the client reaches the console.
  docker stop -t 10 "$walls" >/dev/null
  check "the walls service removes its rules when it stops ($(walls_rules) left)" test "$(walls_rules)" = 0
  check "control: without the walls the client reaches the console by its address" client_reaches "http://$console_ip:8088/api/session"
  docker start "$walls" >/dev/null
  check "the walls service starts again, healthy" wait_until 30 walls_healthy
  refute "client -> the console by its address, the walls back" in_client_ns "http://$console_ip:8088/api/session"
  # A rule dropped by someone else is put back within the service's check interval.
  in_engine_ns "$STARTED_ENGINE/bin/iptables" -w -t raw -D PREROUTING -d "$(lab_address 128)/26" ! -i soar-ac1e42-e \
    -m comment --comment soar-lab:soar-ac1e42 -j DROP
  check "a rule removed by hand is put back within 40 s" wait_until 40 walls_all_back
  walls_lan_mode
  walls_cleanup
}

# LAN mode: a lab published on the engine host's classroom-side address (10.250.0.1) answers the client
# there, and still not by its container address.
walls_lan_mode() {
  local console_ip lan_project=soar-lab-$WALLS_LAN_LAB
  log "the walls in LAN mode (LAB_BIND on the classroom side)"
  ip -n "$WALLS_CLIENT_NETNS" route add 172.30.70.0/24 via 10.250.0.1
  # In the engine's namespace, where 10.250.0.1 is an address of the host (make up checks its ports there).
  if ! LAB=$WALLS_LAN_LAB LAB_BIND=10.250.0.1 LAB_SUBNET=172.30.70.0/24 LAB_EDITOR_PORT=5690 LAB_CONSOLE_PORT=8090 \
    timeout 300 nsenter --net="/var/run/netns/$ENGINE_NETNS" bash docker/lab.sh up >"$WORK/lan-up.log" 2>&1; then
    fail "a lab published on the classroom side comes up" "$(tail -n 3 "$WORK/lan-up.log" | tr '\n' ' ')"
    return 0
  fi
  pass "a lab published on the classroom side comes up (LAB_BIND=10.250.0.1)"
  console_ip=$(docker inspect -f "{{(index .NetworkSettings.Networks \"${lan_project}_editor\").IPAddress}}" "$(container_of "$lan_project" console)")
  # On the classroom side both ports speak TLS only, with the class CA's certificate (docker/lab/tls.sh):
  # the client trusts that CA alone; plain HTTP gets no answer (its control: the same request over https).
  check "client -> that lab's console on its published address https://10.250.0.1:8090" with_class_ca client_reaches https://10.250.0.1:8090/api/session
  check "client -> its editor gate on its published address https://10.250.0.1:5690" with_class_ca client_reaches https://10.250.0.1:5690/healthz
  refute "client -> that lab's console in plain HTTP (no status line)" client_reaches http://10.250.0.1:8090/api/session
  refute "client -> its editor gate in plain HTTP (no status line)" client_reaches http://10.250.0.1:5690/healthz
  refute "client -> that lab's console by its address $console_ip:8088" in_client_ns "http://$console_ip:8088/api/session"
  refute "client -> its editor gate by its address $console_ip:5678" in_client_ns "http://$console_ip:5678/healthz"
  check "make down LAB_FORCE_DOWN=1 removes it, and its walls' rules with it" \
    lan_lab_down
}

# with_class_ca COMMAND...: COMMAND (a function too) with Node trusting the class CA besides its own.
with_class_ca() { NODE_EXTRA_CA_CERTS=$ROOT/labs/tls/class-ca.pem "$@"; }

lan_lab_down() {
  LAB=$WALLS_LAN_LAB LAB_FORCE_DOWN=1 timeout 120 nsenter --net="/var/run/netns/$ENGINE_NETNS" bash docker/lab.sh down >/dev/null 2>&1 &&
    [ "$(walls_rules_of soar-ac1e46)" = 0 ]
}

# wait_until SECONDS COMMAND...: every second until the command succeeds or the time is up.
wait_until() {
  local until=$((SECONDS + $1))
  shift
  until "$@"; do
    [ "$SECONDS" -lt "$until" ] || return 1
    sleep 1
  done
}
