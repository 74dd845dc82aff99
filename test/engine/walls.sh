# shellcheck shell=bash
# The lab's walls on the engine (sourced by test/engine/run.sh once the lab is up): n8n reaches no address
# of the host (a listener on the engine host's 0.0.0.0, probed at each lab network's gateway), and a
# "classroom client" (a network namespace of this test's own, routing the lab's /24 through the engine's
# namespace) reaches no container of the lab, while the ports published on the engine host still answer.
# Each probe is shown to reach its target with its wall removed: n8n on an internal network whose bridge
# has the host's address (the engine's default), and the client with the walls service stopped.
#   needs: the lab up, N8N and CONSOLE (container ids), PROJECT, BASE_IMAGE, CONSOLE_PORT, FETCH, reach_in, REACH (run.sh,
#   test/lib/reach.sh: any answer counts as reached), a private
#   engine (STARTED_ENGINE, ENGINE_NETNS: its iptables and its namespace)

WALLS_CLIENT_NETNS=soar-etest-client
WALLS_HOST_PORT=18999
WALLS_PROBE_NET=soar-lab-etest-gateway-probe
WALLS_UNWALLED=soar-lab-etest-unwalled
WALLS_LISTENER_PID=""

# A second lab, published on the engine host's classroom-side address (LAB_BIND: LAN mode), with the
# trainer's own certificate (LAB_TLS_CERT, LAB_TLS_KEY: an "organisation's CA" of the test's, in $WORK/org).
WALLS_LAN_LAB=etestlan
WALLS_LAN_BIND=10.250.0.1
WALLS_TLS_MADE=0
[ -d "$ROOT/labs/tls" ] || WALLS_TLS_MADE=1

walls_cleanup() {
  [ -n "$WALLS_LISTENER_PID" ] && kill "$WALLS_LISTENER_PID" 2>/dev/null
  WALLS_LISTENER_PID=""
  walls_dns_stop
  if engine_answers && [ -f "$ROOT/labs/$WALLS_LAN_LAB.env" ]; then
    LAB=$WALLS_LAN_LAB LAB_FORCE_DOWN=1 timeout 120 nsenter --net="/var/run/netns/$ENGINE_NETNS" bash docker/lab.sh down >/dev/null 2>&1 || true
  fi
  ip netns del "$WALLS_CLIENT_NETNS" 2>/dev/null || true
  # The trainer's certificate kept for the address (and the class CA, when this test made the folder).
  rm -f "$ROOT/labs/tls/$WALLS_LAN_BIND".{pem,key,own}
  [ "$WALLS_TLS_MADE" = 0 ] || rm -rf "$ROOT/labs/tls"
  if engine_answers; then
    [ -z "${N8N:-}" ] || docker network disconnect -f "$WALLS_PROBE_NET" "$N8N" >/dev/null 2>&1 || true
    docker rm -f "$WALLS_UNWALLED" >/dev/null 2>&1 || true
    docker network rm "$WALLS_PROBE_NET" >/dev/null 2>&1 || true
    [ -z "${N8N:-}" ] || docker network disconnect -f "$WALLS_V6_NET" "$N8N" >/dev/null 2>&1 || true
    docker network rm "$WALLS_V6_NET" >/dev/null 2>&1 || true
  fi
  return 0
}

in_engine_ns() { nsenter --net="/var/run/netns/$ENGINE_NETNS" "$@"; }
in_client_ns() { timeout 20 nsenter --net="/var/run/netns/$WALLS_CLIENT_NETNS" node -e "$REACH" "$1"; }

# The address NUMBER places after the start of the lab's /24 (172.30.66.0/24 in this test).
lab_address() { echo "172.30.66.$1"; }

walls_gateways() {
  local net host_addrs
  log "the walls: n8n reaches no address of the host"
  # A listener on every address of the engine host, as sshd or a development server would be.
  # nsenter itself, not through a function: $! is then the listener's own PID (nsenter execs node), so
  # that the clean-up ends it (a subshell's PID would leave node running, holding the test's descriptors).
  nsenter --net="/var/run/netns/$ENGINE_NETNS" node -e "require('http').createServer((q,s)=>s.end('host')).listen($WALLS_HOST_PORT,'0.0.0.0')" &
  WALLS_LISTENER_PID=$!
  sleep 1
  check "control: the host's listener answers on the host" in_engine_ns node -e "$FETCH" "http://127.0.0.1:$WALLS_HOST_PORT/"
  for net in i b f; do
    host_addrs=$(in_engine_ns ip -4 -o addr show dev "soar-ac1e42-$net" 2>&1 | awk '{print $4}')
    check "the bridge of an internal network (soar-ac1e42-$net) holds no address of the host" test -z "$host_addrs"
  done
  # Each network's gateway, the host's address where a network has one (.1, .65, .129, .193).
  for net in 1 65 129 193; do
    refute_reach "n8n -> the host's listener at the gateway $(lab_address "$net")" reach_in "$N8N" "http://$(lab_address "$net"):$WALLS_HOST_PORT/"
  done
  # Control: an internal network as Docker makes it by default: its bridge holds the host's address.
  docker network create --internal --subnet 172.30.99.0/24 "$WALLS_PROBE_NET" >/dev/null
  docker network connect "$WALLS_PROBE_NET" "$N8N"
  control_reach "control: n8n on an internal network without inhibit_ipv4 reaches the host's listener at its gateway" \
    reach_in "$N8N" "http://172.30.99.1:$WALLS_HOST_PORT/"
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
client_reaches() { in_client_ns "$1"; }
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
  refute_reach "client -> the console by its address $console_ip:8088" in_client_ns "http://$console_ip:8088/api/session"
  refute_reach "client -> the editor gate by its address $console_ip:5678" in_client_ns "http://$console_ip:5678/healthz"
  refute_reach "client -> the mock API by its address $(lab_address 2):8081" in_client_ns "http://$(lab_address 2):8081/health"
  check "the console is still published on the engine host's loopback" in_engine_ns node -e "$FETCH" "http://127.0.0.1:5678/healthz"
  # The walls removed: the walls service stopped takes its rules away, and the client reaches the console.
  docker stop -t 10 "$walls" >/dev/null
  check "the walls service removes its rules when it stops ($(walls_rules) left)" test "$(walls_rules)" = 0
  control_reach "control: without the walls the client reaches the console by its address" client_reaches "http://$console_ip:8088/api/session"
  control_reach "control: without the walls the client reaches the editor gate by its address" client_reaches "http://$console_ip:5678/healthz"
  # The mock API's own walls are its network's (internal: the engine drops what is routed to it; no
  # address of the host) and its publishing nothing (Docker before 28 forwards a routed packet only to a
  # container's published ports). The control: a container on a network with neither wall, its port
  # published, no walls' rule: the same probe reaches it by its address.
  docker network create --subnet 172.30.99.0/24 "$WALLS_PROBE_NET" >/dev/null
  docker run -d --name "$WALLS_UNWALLED" --network "$WALLS_PROBE_NET" --ip 172.30.99.2 -p 127.0.0.1:18081:8081 \
    "$BASE_IMAGE" node -e 'require("http").createServer((q,s)=>s.end("unwalled")).listen(8081,"0.0.0.0")' >/dev/null
  ip -n "$WALLS_CLIENT_NETNS" route add 172.30.99.0/24 via 10.250.0.1
  control_reach "control: the client reaches a container by its address on a network neither internal nor walled, its port published (172.30.99.2:8081)" \
    client_reaches http://172.30.99.2:8081/health
  docker rm -f "$WALLS_UNWALLED" >/dev/null
  docker network rm "$WALLS_PROBE_NET" >/dev/null
  docker start "$walls" >/dev/null
  check "the walls service starts again, healthy" wait_until 30 walls_healthy
  refute_reach "client -> the console by its address, the walls back" in_client_ns "http://$console_ip:8088/api/session"
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
  # The trainer's own certificate for the address, from a CA of their organisation's (not the class CA).
  bash docker/lab/tls.sh "$WORK/org" "$WALLS_LAN_BIND" >/dev/null
  # In the engine's namespace, where 10.250.0.1 is an address of the host (make up checks its ports there).
  if ! LAB=$WALLS_LAN_LAB LAB_BIND=$WALLS_LAN_BIND LAB_SUBNET=172.30.70.0/24 LAB_EDITOR_PORT=5690 LAB_CONSOLE_PORT=8090 \
    LAB_TLS_CERT=$WORK/org/$WALLS_LAN_BIND.pem LAB_TLS_KEY=$WORK/org/$WALLS_LAN_BIND.key \
    timeout 300 nsenter --net="/var/run/netns/$ENGINE_NETNS" bash docker/lab.sh up >"$WORK/lan-up.log" 2>&1; then
    fail "a lab published on the classroom side comes up" "$(tail -n 3 "$WORK/lan-up.log" | tr '\n' ' ')"
    return 0
  fi
  pass "make up LAB_BIND=10.250.0.1 LAB_TLS_CERT=... LAB_TLS_KEY=...: one lab on the classroom side, the trainer's certificate"
  check "... make up's links are https://10.250.0.1 and its tls line names the trainer's own certificate, not the class CA" \
    lan_up_says
  console_ip=$(docker inspect -f "{{(index .NetworkSettings.Networks \"${lan_project}_editor\").IPAddress}}" "$(container_of "$lan_project" console)")
  # On the classroom side both ports speak TLS only, with the trainer's certificate: the client trusts
  # their organisation's CA alone and gets a status line over https; trusting the class CA alone it is
  # refused (the certificate served is the trainer's). Plain HTTP reaches the port and is answered no
  # status line (the same port, the same client: the https line is its control).
  control_reach "client -> that lab's console over https://10.250.0.1:8090 (the trainer's CA)" client_https https://10.250.0.1:8090/api/session "$WORK/org/class-ca.pem"
  control_reach "client -> its editor gate over https://10.250.0.1:5690 (the trainer's CA)" client_https https://10.250.0.1:5690/healthz "$WORK/org/class-ca.pem"
  check "client -> that lab's console trusting the class CA alone: refused, the certificate is the trainer's" \
    client_https_refused https://10.250.0.1:8090/api/session "$ROOT/labs/tls/class-ca.pem"
  check "client -> that lab's console in plain HTTP: no status line" client_plain_unanswered http://10.250.0.1:8090/api/session
  check "client -> its editor gate in plain HTTP: no status line" client_plain_unanswered http://10.250.0.1:5690/healthz
  refute_reach "client -> that lab's console by its address $console_ip:8088" in_client_ns "http://$console_ip:8088/api/session"
  refute_reach "client -> its editor gate by its address $console_ip:5678" in_client_ns "http://$console_ip:5678/healthz"
  check "make down LAB_FORCE_DOWN=1 removes it, and its walls' rules with it" \
    lan_lab_down
}

# client_https URL CA: an https GET from the client, trusting CA alone; exits 0 with the status line.
client_https() {
  timeout 20 nsenter --net="/var/run/netns/$WALLS_CLIENT_NETNS" node -e 'const fs=require("fs");
require("https").get(process.argv[1],{ca:fs.readFileSync(process.argv[2]),timeout:5000},r=>{console.log("reached: HTTP "+r.statusCode);process.exit(0)})
.on("error",e=>{console.log("no answer: "+e.code);process.exit(1)})' "$1" "$2"
}
# client_https_refused URL CA: the TLS handshake itself fails on the certificate (not a timeout or a
# refused connection: the port answered, with a certificate CA did not sign).
client_https_refused() {
  local said
  said=$(client_https "$1" "$2" || true)
  echo "$said"
  grep -Eq '^no answer: (UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY|DEPTH_ZERO_SELF_SIGNED_CERT)$' <<<"$said"
}
# lan_up_says: make up's own lines for the LAN lab: https links on the address, and the trainer's certificate.
lan_up_says() {
  grep -E 'https://10\.250\.0\.1:(5690|8090)' "$WORK/lan-up.log" | head -n 2
  grep -E '^  tls: ' "$WORK/lan-up.log"
  grep -q 'https://10\.250\.0\.1:8090' "$WORK/lan-up.log" && grep -q "^  tls: .*the trainer's own for 10\.250\.0\.1" "$WORK/lan-up.log" &&
    ! grep -q '^  tls: .*Class CA' "$WORK/lan-up.log"
}
# client_plain_unanswered URL: plain HTTP from the client reaches the port and gets no HTTP status line.
client_plain_unanswered() {
  local said
  said=$(in_client_ns "$1" || true)
  echo "$said"
  grep -q '^reached' <<<"$said" && ! grep -q 'answered "HTTP/' <<<"$said"
}

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

# DNS: the host's resolver (its /etc/resolv.conf's first nameserver) stood in for by a counting resolver
# on the engine host's loopback interface, at that address, answering NXDOMAIN. A lookup from n8n (internal
# networks only) must send it nothing; the controls are the same lookup from a container on an ordinary
# network, and from n8n itself joined to one, whose queries the engine forwards there. Engines 25.0.0-25.0.3 forwarded the internal
# networks' queries too (CVE-2024-29018).
WALLS_DNS_PID=""
WALLS_DNS_LOG=""
WALLS_RESOLVER=""
WALLS_DNS='const d=require("dgram").createSocket("udp4"),fs=require("fs");d.on("message",(m,r)=>{let i=12,n=[];
while(i<m.length&&m[i]){n.push(m.slice(i+1,i+1+m[i]).toString());i+=m[i]+1}fs.appendFileSync(process.argv[2],n.join(".")+" "+r.address+"\n");
const a=Buffer.from(m.slice(0,i+5));a[2]=0x81;a[3]=0x83;a.writeUInt16BE(0,6);a.writeUInt16BE(0,8);a.writeUInt16BE(0,10);d.send(a,r.port,r.address)});
d.bind(53,process.argv[1])'
# lookup_in CONTAINER NAME: one lookup through the container's resolver (the engine's embedded DNS).
lookup_in() {
  timeout 20 docker exec "$1" node -e 'require("dns").lookup(process.argv[1],(e,a)=>{console.log(e?e.code:a)})' "$2" || true
}
dns_queries() { grep -c "^$1 " "$WALLS_DNS_LOG" 2>/dev/null || true; }

walls_dns() {
  log "the walls: no DNS query of n8n's leaves the lab (a counting resolver at the host's resolver address)"
  WALLS_RESOLVER=$(awk '$1 == "nameserver" && $2 ~ /^[0-9.]+$/ {print $2; exit}' /etc/resolv.conf)
  if [ -z "$WALLS_RESOLVER" ]; then
    fail "the host names an IPv4 resolver in /etc/resolv.conf (the engine's upstream)"
    return 0
  fi
  WALLS_DNS_LOG=$WORK/dns-queries.log
  : >"$WALLS_DNS_LOG"
  in_engine_ns ip addr add "$WALLS_RESOLVER/32" dev lo
  nsenter --net="/var/run/netns/$ENGINE_NETNS" node -e "$WALLS_DNS" "$WALLS_RESOLVER" "$WALLS_DNS_LOG" &
  WALLS_DNS_PID=$!
  sleep 1
  echo "        n8n's lookup: $(lookup_in "$N8N" n8n.walls-probe.example)"
  echo "        the outside box's lookup: $(lookup_in "$OUTSIDE_BOX" outside.walls-probe.example)"
  check "n8n's lookup of an outside name reaches the host's resolver 0 times ($(dns_queries n8n.walls-probe.example))" \
    test "$(dns_queries n8n.walls-probe.example)" = 0
  check "control: a container on an ordinary network reaches it ($(dns_queries outside.walls-probe.example) queries)" \
    test "$(dns_queries outside.walls-probe.example)" -gt 0
  # The same lookup from n8n itself, the wall removed: n8n joined to a network that is not internal.
  docker network create --subnet 172.30.99.0/24 "$WALLS_PROBE_NET" >/dev/null
  docker network connect "$WALLS_PROBE_NET" "$N8N"
  echo "        n8n's lookup on a network that is not internal: $(lookup_in "$N8N" n8n-routed.walls-probe.example)"
  check "control: n8n joined to a network that is not internal reaches it ($(dns_queries n8n-routed.walls-probe.example) queries)" \
    test "$(dns_queries n8n-routed.walls-probe.example)" -gt 0
  docker network disconnect "$WALLS_PROBE_NET" "$N8N"
  docker network rm "$WALLS_PROBE_NET" >/dev/null
  echo "        n8n's lookup again, on the lab's networks only: $(lookup_in "$N8N" n8n.walls-probe.example)"
  check "... which reaches it 0 times still ($(dns_queries n8n.walls-probe.example))" \
    test "$(dns_queries n8n.walls-probe.example)" = 0
  walls_dns_stop
}
walls_dns_stop() {
  [ -n "$WALLS_DNS_PID" ] && kill "$WALLS_DNS_PID" 2>/dev/null
  WALLS_DNS_PID=""
  [ -z "$WALLS_RESOLVER" ] || in_engine_ns ip addr del "$WALLS_RESOLVER/32" dev lo 2>/dev/null || true
  WALLS_RESOLVER=""
}

# IPv6: every lab network is made without it (enable_ipv6: false), so n8n holds no IPv6 address but
# loopback (Docker turns IPv6 off on a container's end of such a network: not even link-local), and no
# lab bridge holds a host address on IPv6 but the kernel's link-local one. Probes of the host's listener
# (on the engine host's every address, IPv6 and IPv4) at each lab bridge's link-local address, through
# n8n's interface on that network, and at an IPv6 gateway n8n is not on, reach nothing. The control: n8n
# joined to a network made with IPv6 holds an address there, that bridge the host's, and the same
# probes of that bridge's two addresses reach the listener. (This engine, Docker 26.1, cannot be set to
# give new networks IPv6 by default: started with default-network-opts bridge
# com.docker.network.enable_ipv6=true it copies the option into a new network's options and still makes
# it with EnableIPv6 false and no IPv6 subnet; the option takes effect from Docker 27.)
WALLS_V6_NET=soar-lab-etest-v6-probe
WALLS_V6_GATEWAY=fd5a:11ab:6::1
# global_v6_of CONTAINER: its IPv6 addresses other than loopback and link-local, one a line.
global_v6_of() {
  timeout 20 docker exec "$1" node -e 'for(const l of Object.values(require("os").networkInterfaces()))for(const a of l)if(a.family==="IPv6"&&!a.internal&&!a.address.startsWith("fe80"))console.log(a.address)'
}
host_v6_on() { in_engine_ns ip -6 -o addr show dev "$1" scope global 2>/dev/null | awk '{print $4}'; }
link_local_on() { in_engine_ns ip -6 -o addr show dev "$1" scope link 2>/dev/null | awk '{sub(/\/.*/, "", $4); print $4; exit}'; }
# iface_of CONTAINER IPV4: the name of the container's interface that holds IPV4.
iface_of() {
  timeout 20 docker exec "$1" node -e 'for(const[n,l]of Object.entries(require("os").networkInterfaces()))for(const a of l)if(a.address===process.argv[1])console.log(n)' "$2"
}
n8n_ip_on() { docker inspect -f "{{(index .NetworkSettings.Networks \"$1\").IPAddress}}" "$N8N"; }

walls_ipv6() {
  local net addrs ll iface port=$WALLS_HOST_PORT
  log "the walls: no IPv6 on the lab's networks"
  for net in lab-internal n8n-backend editor n8n-front; do
    check "network $net: EnableIPv6 false" test "$(docker network inspect -f '{{.EnableIPv6}}' "${PROJECT}_$net")" = false
  done
  addrs=$(global_v6_of "$N8N" | tr '\n' ' ')
  check "n8n holds no IPv6 address but loopback and link-local (${addrs:-none})" test -z "$addrs"
  addrs=""
  for net in i b f e; do addrs+=$(host_v6_on "soar-ac1e42-$net"); done
  check "no bridge of the lab holds a host address on IPv6 (${addrs:-none})" test -z "$addrs"
  # The host's listener on '::': IPv6 and IPv4, every address of the engine host.
  nsenter --net="/var/run/netns/$ENGINE_NETNS" node -e "require('http').createServer((q,s)=>s.end('host')).listen($port,'::')" &
  WALLS_LISTENER_PID=$!
  sleep 1
  check "control: the host's listener answers on the host's IPv6 loopback" in_engine_ns node -e "$FETCH" "http://[::1]:$port/"
  for net in i:lab-internal b:n8n-backend f:n8n-front; do
    ll=$(link_local_on "soar-ac1e42-${net%%:*}")
    iface=$(iface_of "$N8N" "$(n8n_ip_on "${PROJECT}_${net#*:}")")
    if [ -z "$ll" ]; then
      pass "the bridge of ${net#*:} holds no IPv6 address at all, not even link-local"
      continue
    fi
    refute_reach "n8n ($iface) -> the host's listener at ${net#*:}'s bridge's link-local address $ll" \
      reach_in "$N8N" "http://[$ll]:$port/" "$iface"
  done
  refute_reach "n8n -> the host's listener at an IPv6 gateway it is not on ($WALLS_V6_GATEWAY)" \
    reach_in "$N8N" "http://[$WALLS_V6_GATEWAY]:$port/"
  docker network create --internal --ipv6 --subnet fd5a:11ab:6::/64 --subnet 172.30.98.0/24 \
    -o com.docker.network.bridge.name=soar-etest-v6 "$WALLS_V6_NET" >/dev/null
  docker network connect "$WALLS_V6_NET" "$N8N"
  addrs=$(global_v6_of "$N8N" | tr '\n' ' ')
  check "control: n8n on a network made with IPv6 holds an address there (${addrs:-none})" test -n "$addrs"
  addrs=$(host_v6_on soar-etest-v6)
  check "control: that internal network's bridge holds the host's address on IPv6 (${addrs:-none})" test -n "$addrs"
  sleep 2 # the addresses' duplicate detection, before they answer
  control_reach "control: n8n there reaches the host's listener at that network's IPv6 gateway" \
    reach_in "$N8N" "http://[$WALLS_V6_GATEWAY]:$port/"
  ll=$(link_local_on soar-etest-v6)
  iface=$(iface_of "$N8N" "$(n8n_ip_on "$WALLS_V6_NET")")
  control_reach "control: ... and at its bridge's link-local address $ll through its interface there ($iface)" \
    reach_in "$N8N" "http://[$ll]:$port/" "$iface"
  docker network disconnect "$WALLS_V6_NET" "$N8N"
  docker network rm "$WALLS_V6_NET" >/dev/null
  kill "$WALLS_LISTENER_PID" 2>/dev/null
  WALLS_LISTENER_PID=""
}
