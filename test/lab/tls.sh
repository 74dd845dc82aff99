# shellcheck shell=bash
# The classroom over TLS (part of test/lab/run.sh: LAB_TEST_PARTS=tls), as a class of two meets it from
# a trainee's laptop: the lab host's classroom address (10.251.0.1) on a veth pair between the engine's
# namespace and a "laptop" namespace the test makes (10.251.0.2), nothing else routed. Every make command
# as a trainer types it, without Node.js.
#   tls_up         make class-up ROSTER=... LAB_BIND=10.251.0.1; the roster's https:// links and the CA's
#                  fingerprint; make class-board LAB_BIND=... beside it; the laptop trusts the class CA
#                  (an NSS database made with certutil, as a trainee on Linux does)
#   tls_plain      plain HTTP to every port published on the classroom address: no status line; the
#                  control, the same port over https trusting the class CA, answers
#   tls_between    trainee 2's console asks trainee 1 for its secret (trainee 1's is refused there);
#                  the board shows the CA's fingerprint and offers its file; a workflow published over TLS
#   tls_chromium   Chromium in the laptop: without the class CA it does not open the console; with it,
#                  the console's sign-in link, a test alert and its tutor card, n8n's sign-in (its cookie
#                  Secure), the card's link into n8n's run; tcpdump on the classroom link all along finds
#                  neither the console secret nor n8n's password; the control, the same capture of the
#                  same secrets posted in plain HTTP on that link, finds both
#   tls_down       make class-down
# tls_chromium holds the only Chromium steps (run.sh may run them in its Chromium phase); tls_stop (the
# clean-up) ends what the part started, by PID, and removes its namespace.
#   needs: ROOT, WORK, ENGINE_NETNS (empty: the host's own namespace), lib.sh and test/lib/reach.sh

TLS_BIND=10.251.0.1
TLS_LAPTOP=10.251.0.2
# Not named after the engine's namespace with a suffix: the engine's start looks its namespace up by prefix
# (../shared/tools/docker-engine/start.sh), and a namespace named soar-lab-test-laptop left behind made a
# restarted engine take it for its own.
TLS_NETNS=laptop-${LAB_TEST_NETNS:-soar-lab-test}
TLS_ROSTER=$WORK/tls-class.txt
TLS_BOARD_PORT=8443
TLS_CA=$ROOT/labs/tls/class-ca.pem
# The laptop's homes: one whose NSS database trusts the class CA, one with nothing added.
TLS_HOME=$WORK/laptop-home
TLS_BARE=$WORK/laptop-bare
TLS_BOARD_PID=""
TLS_DUMP_PID=""
TLS_PLAIN_PID=""
# What the part made in the checkout's labs/ (the class CA when there was none, the board's secret), removed by tls_stop.
TLS_MADE=()

in_laptop() { nsenter --net="/var/run/netns/$TLS_NETNS" "$@"; }
# The trainees' settings, by their place in the roster: tls_env 1|2 NAME.
tls_lab() { if [ "$1" = 1 ]; then echo tla; else echo tlb; fi; }
tls_env() { env_of "labs/$(tls_lab "$1").env" "$2"; }
# A trainee's link from the roster (labs/class-roster.txt): tls_link 1|2 editor|console.
tls_link() { sed -nE "s/^$(tls_lab "$1")  .*$2 (https?:[^ ]+).*/\1/p" labs/class-roster.txt; }
tls_console() { local u; u=$(tls_link "$1" console) && echo "${u%%/login*}"; }
# curl in the laptop, trusting the class CA alone.
laptop_curl() { in_laptop curl -sS --max-time 10 --cacert "$TLS_CA" "$@"; }

tls_stop() {
  local pid
  for pid in "$TLS_DUMP_PID" "$TLS_PLAIN_PID" "$TLS_BOARD_PID"; do [ -z "$pid" ] || kill_tree "$pid"; done
  TLS_DUMP_PID="" TLS_PLAIN_PID="" TLS_BOARD_PID=""
  if engine_answers; then
    docker rm -f soar-lab-class-board >/dev/null 2>&1 || true
    for pid in tla tlb; do [ ! -f "labs/$pid.env" ] || LAB=$pid LAB_FORCE_DOWN=1 timeout 300 bash docker/lab.sh down >/dev/null 2>&1 || true; done
  fi
  ip netns del "$TLS_NETNS" 2>/dev/null || true
  [ "${#TLS_MADE[@]}" = 0 ] || rm -rf "${TLS_MADE[@]}"
  TLS_MADE=()
}

# The laptop: its namespace, a veth pair into the engine's (the lab host's classroom address there).
tls_laptop_up() {
  ip netns del "$TLS_NETNS" 2>/dev/null || true
  ip netns add "$TLS_NETNS"
  ip link add soar-tls0 type veth peer name soar-tls1
  [ -z "$ENGINE_NETNS" ] || ip link set soar-tls0 netns "$ENGINE_NETNS"
  ip link set soar-tls1 netns "$TLS_NETNS"
  in_ns ip addr add "$TLS_BIND/30" dev soar-tls0
  in_ns ip link set soar-tls0 up
  ip -n "$TLS_NETNS" addr add "$TLS_LAPTOP/30" dev soar-tls1
  ip -n "$TLS_NETNS" link set soar-tls1 up
  ip -n "$TLS_NETNS" link set lo up
}

# tls_tools: certutil (libnss3-tools) and tcpdump, installed with apt when missing (this is root).
tls_tools() {
  local missing=()
  command -v certutil >/dev/null || missing+=(libnss3-tools)
  command -v tcpdump >/dev/null || missing+=(tcpdump)
  [ "${#missing[@]}" -gt 0 ] || return 0
  log "installing ${missing[*]} (apt-get)"
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

tls_up() {
  log "the classroom over TLS: a class of two on $TLS_BIND, seen from a laptop"
  local started=$SECONDS fp
  tls_tools
  tls_laptop_up
  [ -e labs/tls ] || TLS_MADE+=("$ROOT/labs/tls")
  [ -e labs/class-board.env ] || TLS_MADE+=("$ROOT/labs/class-board.env")
  printf 'tla\ntlb\n' >"$TLS_ROSTER"
  if ! make_lab class-up ROSTER="$TLS_ROSTER" LAB_BIND="$TLS_BIND" >"$WORK/tls-up.log" 2>&1; then
    tail -n 5 "$WORK/tls-up.log"
    fail "make class-up ROSTER=... LAB_BIND=$TLS_BIND brings two labs up"
    return 1
  fi
  TLS_UP_SECONDS=$((SECONDS - started))
  pass "make class-up ROSTER=... LAB_BIND=$TLS_BIND brings two labs up (${TLS_UP_SECONDS} s)"
  check "the roster's links are https:// on the classroom address" test \
    "$(tls_link 1 editor) $(tls_console 2)" = "https://$TLS_BIND:$(tls_env 1 LAB_EDITOR_PORT) https://$TLS_BIND:$(tls_env 2 LAB_CONSOLE_PORT)"
  fp=$(openssl x509 -in "$TLS_CA" -noout -fingerprint -sha256 | sed 's/^.*=//')
  check "the roster names the class CA's file and its SHA-256 fingerprint ($(cut -c1-23 <<<"$fp")...)" \
    grep -qF "$TLS_CA, SHA-256 $fp" labs/class-roster.txt
  check "the class CA's key is the trainer's only (0600 in a 0700 folder)" test \
    "$(stat -c %a "$ROOT/labs/tls" "$ROOT/labs/tls/class-ca.key" | paste -sd' ')" = "700 600"
  # The board beside the labs, as the trainer starts it (it runs until stopped).
  as_trainer make -s --no-print-directory class-board ROSTER="$TLS_ROSTER" LAB_BIND="$TLS_BIND" \
    CLASS_BOARD_PORT="$TLS_BOARD_PORT" >"$WORK/tls-board.log" 2>&1 &
  TLS_BOARD_PID=$!
  for _ in $(seq 60); do grep -q 'the class board: http' "$WORK/tls-board.log" && break; sleep 1; done
  check "make class-board LAB_BIND=$TLS_BIND serves the board ($(grep -m 1 -o 'the class board: [^ ]*' "$WORK/tls-board.log"))" \
    grep -q "the class board: https://$TLS_BIND:$TLS_BOARD_PORT" "$WORK/tls-board.log"
  # The laptop trusts the class CA: an NSS database in its HOME (Chromium on Linux reads ~/.pki/nssdb).
  mkdir -p "$TLS_HOME/.pki/nssdb" "$TLS_BARE"
  certutil -d "sql:$TLS_HOME/.pki/nssdb" -N --empty-password
  certutil -d "sql:$TLS_HOME/.pki/nssdb" -A -t C,, -n "SOAR lab class CA" -i "$TLS_CA"
  check "the laptop's NSS database holds the class CA as its only added authority" test \
    "$(certutil -d "sql:$TLS_HOME/.pki/nssdb" -L | tail -n +5 | awk 'NF' | wc -l)" = 1
}

# tls_published: every port the engine publishes on the classroom address, one a line.
tls_published() { docker ps --format '{{.Ports}}' | grep -oE "$TLS_BIND:[0-9]+" | cut -d: -f2 | sort -un; }
# plain_unanswered PORT: plain HTTP from the laptop reaches PORT and gets no status line.
plain_unanswered() {
  local said
  said=$(in_laptop timeout 20 node -e "$REACH" "http://$TLS_BIND:$1/" || true)
  echo "$said"
  grep -q '^reached' <<<"$said" && ! grep -q 'answered "HTTP/' <<<"$said"
}
# https_answers PORT: the same port over https, trusting the class CA alone, answers with a status line.
https_answers() { laptop_curl -o /dev/null -w 'HTTP %{http_code}\n' "https://$TLS_BIND:$1/"; }

tls_plain() {
  log "plain HTTP on the classroom address"
  local ports port
  ports=$(tls_published | paste -sd' ')
  check "the engine publishes five ports on $TLS_BIND: two labs' editor and console, the board ($ports)" \
    test "$(wc -w <<<"$ports")" = 5
  for port in $ports; do
    control_reach "control: https://$TLS_BIND:$port trusting the class CA answers" https_answers "$port"
    check "plain http://$TLS_BIND:$port: no status line, no content" plain_unanswered "$port"
  done
}

# tls_sign_in N SECRET JAR: the console sign-in of trainee N, from the laptop, as its sign-in page posts it.
tls_sign_in() {
  laptop_curl -o /dev/null -w '%{http_code}' -c "$3" -X POST "$(tls_console "$1")/login" \
    -H "origin: $(tls_console "$1")" --data-urlencode "secret=$2"
}

tls_between() {
  log "between the trainees, the board, a workflow published over TLS"
  local one two page
  one=$(tls_env 1 CONSOLE_SECRET) two=$(tls_env 2 CONSOLE_SECRET)
  page=$(laptop_curl -L -H 'accept: text/html' -w '\nHTTP %{http_code}' "$(tls_console 2)/")
  check "trainee 2's console, opened from the laptop without its secret, asks for it ($(tail -n 1 <<<"$page"))" \
    grep -q 'name="secret"' <<<"$page"
  check "... trainee 1's secret is refused there (401)" test "$(tls_sign_in 2 "$one" "$WORK/tls-jar-x")" = 401
  check "... control: trainee 2's own secret opens it" test "$(tls_sign_in 2 "$two" "$WORK/tls-jar-2")" = 303
  check "the board offers the class CA's file without a session, the very file" \
    cmp -s "$TLS_CA" <(laptop_curl "https://$TLS_BIND:$TLS_BOARD_PORT/class-ca.pem")
  check "the board's page shows the class CA's fingerprint" board_shows_fingerprint
  check "trainee 1 publishes a workflow (the guide's, up to validate) from the laptop, over TLS" tls_publish
}
board_shows_fingerprint() {
  local secret jar=$WORK/tls-board-jar fp
  secret=$(sed -n 's/^CLASS_BOARD_SECRET=//p' labs/class-board.env | tail -n 1)
  fp=$(openssl x509 -in "$TLS_CA" -noout -fingerprint -sha256 | sed 's/^.*=//')
  laptop_curl -o /dev/null -c "$jar" -X POST "https://$TLS_BIND:$TLS_BOARD_PORT/login" \
    -H "origin: https://$TLS_BIND:$TLS_BOARD_PORT" --data-urlencode "secret=$secret"
  laptop_curl -b "$jar" "https://$TLS_BIND:$TLS_BOARD_PORT/" | grep -qF "SHA-256 <code>$fp</code>"
}
tls_publish() {
  TRAINEE_EMAIL=$(tls_env 1 N8N_OWNER_EMAIL) TRAINEE_PASSWORD=$(tls_env 1 N8N_OWNER_PASSWORD) NODE_EXTRA_CA_CERTS=$TLS_CA \
    in_laptop timeout 180 npx tsx test/lab/trainee.ts --n8n "$(tls_link 1 editor)" --upto validate
}

# tls_browser ARGS...: the laptop's Chromium driver (test/lab/tls-browser.ts).
tls_browser() { in_laptop timeout 300 npx tsx test/lab/tls-browser.ts "$@"; }
tls_session() {
  CONSOLE_SECRET=$(tls_env 1 CONSOLE_SECRET) TRAINEE_EMAIL=$(tls_env 1 N8N_OWNER_EMAIL) TRAINEE_PASSWORD=$(tls_env 1 N8N_OWNER_PASSWORD) \
    tls_browser session --home "$TLS_HOME" --console "$(tls_console 1)" --n8n "$(tls_link 1 editor)" --kind positive --out "$1"
}

# chromium_refuses URL: Chromium without the class CA (an empty HOME) fails to open URL for its certificate.
chromium_refuses() {
  local said rc=0
  said=$(tls_browser open --home "$TLS_BARE" --url "$1" 2>&1) || rc=$?
  echo "$said"
  [ "$rc" = 1 ] && grep -q 'ERR_CERT_AUTHORITY_INVALID' <<<"$said"
}

# tls_capture FILE: tcpdump on the laptop's end of the classroom link, every byte of every packet, into FILE.
tls_capture() {
  # Started directly (not through a function, which would fork a subshell), so $! is tcpdump itself; a
  # background job ignores SIGINT, so it is ended with SIGTERM (tcpdump writes out what it holds either way).
  nsenter --net="/var/run/netns/$TLS_NETNS" tcpdump -i soar-tls1 -s 0 -U --immediate-mode -Z root -w "$1" >"$1.log" 2>&1 &
  TLS_DUMP_PID=$!
  for _ in $(seq 20); do grep -qs "listening on" "$1.log" && return 0; sleep 0.25; done
  return 1
}
tls_capture_end() {
  [ -z "$TLS_DUMP_PID" ] || { kill -TERM "$TLS_DUMP_PID" 2>/dev/null; wait "$TLS_DUMP_PID" 2>/dev/null || true; }
  TLS_DUMP_PID=""
}
# bytes_hold FILE TEXT: the capture FILE holds TEXT (its raw bytes).
bytes_hold() { grep -aqF -- "$2" "$1"; }
# packets_to FILE PORT: how many captured packets went to or from the classroom address's PORT.
packets_to() { tcpdump -nn -r "$1" "host $TLS_BIND and tcp port $2" 2>/dev/null | wc -l; }

tls_chromium() {
  log "Chromium in the laptop, trusting only the class CA, sniffed on the classroom link"
  local started=$SECONDS out=$WORK/tls-session.json secret password
  secret=$(tls_env 1 CONSOLE_SECRET) password=$(tls_env 1 N8N_OWNER_PASSWORD)
  check "Chromium without the class CA does not open trainee 1's console: the certificate's authority is unknown to it" \
    chromium_refuses "$(tls_console 1)/login"
  control_reach "control: Chromium trusting the class CA opens it" tls_browser open --home "$TLS_HOME" --url "$(tls_console 1)/login"
  tls_capture "$WORK/tls.pcap" || fail "tcpdump listens on the laptop's end of the classroom link" "$(cat "$WORK/tls.pcap.log")"
  check "with the class CA trusted, Chromium signs in to trainee 1's console from the roster's link, sends a test alert, sees its card, signs in to n8n and follows the card's link into the run" \
    tls_session "$out"
  tls_capture_end
  TLS_CHROMIUM_SECONDS=$((SECONDS - started))
  if [ -s "$out" ]; then
    check "... the card's run ended, and its link opened that run in n8n's editor (HTTP 200 for it there)" json_get "$out" \
      "(['success','error'].includes(r.card.status) && r.landed.includes('/executions/' + r.card.execution) && r.run.status === 200) || process.exit(1)"
    check "... n8n's session cookie is Secure (N8N_SECURE_COOKIE on a classroom address)" json_get "$out" \
      "r.cookies.some((c) => c.name === 'n8n-auth' && c.secure) || process.exit(1)"
    check "... every cookie the browser holds is Secure ($(json_get "$out" "r.cookies.map((c) => c.name + (c.secure ? '+' : '-')).join(' ')"))" \
      json_get "$out" "(r.cookies.length >= 2 && r.cookies.every((c) => c.secure)) || process.exit(1)"
  fi
  check "the capture holds the sign-ins' traffic: $(packets_to "$WORK/tls.pcap" "$(tls_env 1 LAB_CONSOLE_PORT)") packets to the console, $(packets_to "$WORK/tls.pcap" "$(tls_env 1 LAB_EDITOR_PORT)") to the editor" \
    test "$(packets_to "$WORK/tls.pcap" "$(tls_env 1 LAB_CONSOLE_PORT)")" -gt 10 -a "$(packets_to "$WORK/tls.pcap" "$(tls_env 1 LAB_EDITOR_PORT)")" -gt 10
  refute "the console secret is nowhere in the captured bytes" bytes_hold "$WORK/tls.pcap" "$secret"
  refute "n8n's password is nowhere in the captured bytes" bytes_hold "$WORK/tls.pcap" "$password"
  tls_plain_control "$secret" "$password"
}

# The control: the same capture, the same two secrets posted as the sign-ins post them (the console's form,
# n8n's JSON), in plain HTTP on the same link to a listener on the classroom address.
tls_plain_control() {
  local port=18088
  in_ns node -e "require('http').createServer((q,s)=>{q.resume();q.on('end',()=>s.end('ok'))}).listen($port,'$TLS_BIND')" &
  TLS_PLAIN_PID=$!
  # Listening before anything is posted (the listener answers the laptop within 10 s).
  for _ in $(seq 40); do in_laptop curl -s --max-time 1 -o /dev/null "http://$TLS_BIND:$port/" && break; sleep 0.25; done
  tls_capture "$WORK/plain.pcap" || fail "tcpdump listens again" "$(cat "$WORK/plain.pcap.log")"
  check "control: the plain listener takes the console's sign-in form" \
    in_laptop curl -fsS --max-time 5 -o /dev/null "http://$TLS_BIND:$port/login" --data-urlencode "secret=$1"
  check "control: ... and n8n's sign-in JSON" in_laptop curl -fsS --max-time 5 -o /dev/null "http://$TLS_BIND:$port/rest/login" \
    -H 'content-type: application/json' -d "{\"emailOrLdapLoginId\":\"$(tls_env 1 N8N_OWNER_EMAIL)\",\"password\":\"$2\"}"
  # Time for tcpdump to take the last packets from the kernel before it is ended.
  sleep 2
  tls_capture_end
  kill_tree "$TLS_PLAIN_PID"
  TLS_PLAIN_PID=""
  check "control: the same capture of the secret posted in plain HTTP on that link finds it" bytes_hold "$WORK/plain.pcap" "$1"
  check "control: ... and n8n's password posted so finds it" bytes_hold "$WORK/plain.pcap" "$2"
}

tls_down() {
  log "make class-down"
  [ -z "$TLS_BOARD_PID" ] || kill_tree "$TLS_BOARD_PID"
  TLS_BOARD_PID=""
  check "make class-down removes both labs" make_lab class-down ROSTER="$TLS_ROSTER"
  check "... and nothing of them is left" test -z "$(docker ps -aq --filter label=com.docker.compose.project=soar-lab-tla --filter label=com.docker.compose.project=soar-lab-tlb)"
  # The laptop and its cable go with the class: the parts after this one restart the engine.
  ip netns del "$TLS_NETNS" 2>/dev/null || true
}
