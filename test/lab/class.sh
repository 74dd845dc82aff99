# shellcheck shell=bash
# A class on one engine (part of test/lab/run.sh): three labs from a roster with `make class-up`; the
# reference published on two with `make solution LAB=...`; isolation between labs (network, console,
# state); a reset and a check in lab a while lab b runs a check; the class report; a check from lab b's
# console kept through `make down LAB=b` and `make up LAB=b`; `make down LAB=a`
# leaving b running; `make class-down`; an offline start from `make bundle`. Every make command as a
# trainer types it, without Node.js. Sets the figures CLASS_UP_SECONDS, CLASS_AGAIN_SECONDS,
# CLASS_PEAK_MIB, REPORT_SECONDS, BUNDLE_MB, MATRIX_SECONDS.

ROSTER_FILE=$WORK/class.txt

class_up() {
  log "make class-up: three labs side by side"
  printf '# the class\na\nb   # a comment\n\nc\n' >"$ROSTER_FILE"
  local started=$SECONDS out rc=0
  printf 'a\nA!\n' >"$WORK/bad-roster.txt"
  out=$(make_lab class-up ROSTER="$WORK/bad-roster.txt" 2>&1) || rc=$?
  check "a roster with an invalid name is refused in one line, before anything starts ($(head -c 80 <<<"$out"))" \
    test "$rc" != 0 -a "$(said_lines "$out")" = 1 -a -n "$(grep -o 'line 2' <<<"$out")" -a ! -e labs/a.env
  rc=0
  out=$(make_lab class-up ROSTER="$ROSTER_FILE" LAB_MEMORY_PER_LAB_MB=100000000 2>&1) || rc=$?
  # Three, and any lab of another part running beside the class (test/lab/run.sh).
  check "too little memory for three labs: refused in one line ($(head -c 100 <<<"$out"))" \
    test "$rc" != 0 -a "$(said_lines "$out")" = 1 -a -n "$(grep -oE '[0-9]+ lab\(s\) need' <<<"$out")" -a ! -e labs/a.env
  if ! lab_create_lock class_up_now ROSTER="$ROSTER_FILE" >"$WORK/class-up.log" 2>&1; then
    cat "$WORK/class-up.log"
    fail "make class-up brings three labs up"
    summary
  fi
  CLASS_UP_SECONDS=$((SECONDS - started))
  pass "make class-up brings three labs up from cold (${CLASS_UP_SECONDS} s)"
  sed 's/^/        /' "$WORK/class-up.log" | tail -n 5
  check "each lab has its own slot: subnets 172.30.67-69.0/24, editor 5679-5681, console 8089-8091" test \
    "$(for n in a b c; do printf '%s %s %s;' "$(env_of "labs/$n.env" LAB_SUBNET)" "$(env_of "labs/$n.env" LAB_EDITOR_PORT)" "$(env_of "labs/$n.env" LAB_CONSOLE_PORT)"; done)" \
    = "172.30.67.0/24 5679 8089;172.30.68.0/24 5680 8090;172.30.69.0/24 5681 8091;"
  check "each lab has its own secrets and login" test "$(for n in a b c; do env_of "labs/$n.env" N8N_OWNER_PASSWORD; done | sort -u | wc -l)" = 3
  check "the roster lists each trainee's editor, console sign-in link, login and ssh -L line" grep -Eq \
    "^b  editor http://127.0.0.1:5680  console http://127.0.0.1:8090/login#secret=$(env_of labs/b.env CONSOLE_SECRET)  login b@soar-lab.test  password Lab-.*ssh -N -L 5680:127.0.0.1:5680 -L 8090:127.0.0.1:8090 b@" labs/class-roster.txt
  check "... each class lab's console has a secret of its own" test \
    "$(for n in a b c; do env_of "labs/$n.env" CONSOLE_SECRET; done | grep -E '^[0-9a-f]{24}$' | sort -u | wc -l)" = 3
  check "the roster file is private (mode 600)" test "$(stat -c %a labs/class-roster.txt)" = 600
  check "make roster writes each trainee's sshd settings: their own two ports, no TTY, a forced command" \
    sshd_settings_of_b
  check "... private (mode 600)" test "$(stat -c %a labs/sshd/b.conf)" = 600
  local before
  before=$(docker ps -q --filter label=com.docker.compose.project=soar-lab-b | xargs docker inspect -f '{{.Id}} {{.State.StartedAt}}' | sort)
  started=$SECONDS
  check "make class-up on the running class changes nothing" make_lab class-up ROSTER="$ROSTER_FILE"
  CLASS_AGAIN_SECONDS=$((SECONDS - started))
  check "... lab b's containers were not recreated" test "$before" = \
    "$(docker ps -q --filter label=com.docker.compose.project=soar-lab-b | xargs docker inspect -f '{{.Id}} {{.State.StartedAt}}' | sort)"
  check "make up LAB=b is the same lab: already up" same_lab_b
}

# class_up_now ARGS...: make class-up, under the lab creation lock (lib.sh), which it takes first. Once it
# holds it, CLASS_GATE (when set: run.sh's update part waits for it) is made: labs created after this one
# take other slots than the first three.
class_up_now() {
  [ -z "${CLASS_GATE:-}" ] || touch "$CLASS_GATE"
  make_lab_now class-up "$@"
}
same_lab_b() {
  local out
  out=$(make_lab up LAB=b 2>&1) || return 1
  grep -q 'already up' <<<"$out"
}
sshd_settings_of_b() {
  grep -qx 'Match User b' labs/sshd/b.conf && grep -qx '    PermitOpen 127.0.0.1:5680 127.0.0.1:8090' labs/sshd/b.conf &&
    grep -qx '    PermitTTY no' labs/sshd/b.conf && grep -q '^    ForceCommand ' labs/sshd/b.conf
}
# console_state LAB: the console's state as the trainee signed in with their own link sees it.
console_state() {
  local port
  port=$(console_port "$1")
  [ -s "$WORK/jar-$1" ] || console_login "$1" "$(env_of "labs/$1.env" CONSOLE_SECRET)" >/dev/null
  in_ns curl -s -b "$WORK/jar-$1" "http://127.0.0.1:$port/api/state"
}
# console_shows LAB TEXT: LAB's console shows TEXT within 10 s (it polls the mock API every second).
console_shows() {
  for _ in $(seq 20); do
    grep -q "$2" <<<"$(console_state "$1")" && return 0
    sleep 0.5
  done
  return 1
}
solution_then_check() { make_lab solution LAB="$1" >/dev/null && make_lab check LAB="$1" STAGE="$2" >/dev/null; }

# ip_on PROJECT SERVICE NETWORK: a container's address on one of its project's networks.
ip_on() { docker inspect -f "{{(index .NetworkSettings.Networks \"$1_$3\").IPAddress}}" "$(container_of "$1" "$2")"; }

# Between labs: lab a's containers reach nothing of lab b's by its address, counting ANY answer as reached
# (test/lib/reach.sh: a 403 of the mock API, a 421 of the console, Postgres closing on a GET). Each
# refutation beside its control: the same probe from the container of lab b's that is on the target's
# network (the wall, two projects' networks, removed), reaching it.
class_isolation() {
  log "isolation between labs"
  local a_n8n a_console b_api b_n8n b_pg b_console b_n8n_box b_console_box
  a_n8n=$(container_of soar-lab-a n8n)
  a_console=$(container_of soar-lab-a console)
  b_n8n_box=$(container_of soar-lab-b n8n)
  b_console_box=$(container_of soar-lab-b console)
  b_api=$(ip_on soar-lab-b mock-api lab-internal)
  b_n8n=$(ip_on soar-lab-b n8n n8n-front)
  b_pg=$(ip_on soar-lab-b postgres n8n-backend)
  b_console=$(ip_on soar-lab-b console editor)
  control_reach "control: lab b's n8n reaches its own mock API at $b_api" reach_in "$b_n8n_box" "http://$b_api:8081/health"
  refute_reach "lab a's n8n -> lab b's mock API ($b_api)" reach_in "$a_n8n" "http://$b_api:8081/health"
  control_reach "control: lab b's console reaches its own n8n at $b_n8n:5678" reach_in "$b_console_box" "http://$b_n8n:5678/healthz"
  refute_reach "lab a's n8n -> lab b's n8n ($b_n8n:5678)" reach_in "$a_n8n" "http://$b_n8n:5678/healthz"
  refute_reach "lab a's console -> lab b's n8n ($b_n8n:5678)" reach_in "$a_console" "http://$b_n8n:5678/healthz"
  control_reach "control: lab b's n8n reaches its own Postgres at $b_pg:5432" reach_in "$b_n8n_box" "http://$b_pg:5432/"
  refute_reach "lab a's n8n -> lab b's Postgres ($b_pg:5432)" reach_in "$a_n8n" "http://$b_pg:5432/"
  control_reach "control: lab b's console answers at its own address $b_console:8088" reach_in "$b_console_box" "http://$b_console:8088/api/session"
  refute_reach "lab a's console -> lab b's console ($b_console:8088)" reach_in "$a_console" "http://$b_console:8088/api/session"
  make_lab solution LAB=b >/dev/null
  in_ns bash -c 'LAB=b bash docker/lab.sh api POST /notify "{\"channel\":\"email\",\"recipient\":\"x\",\"message\":\"only-in-lab-b\"}"' >/dev/null
  check "control: lab b's console shows lab b's own notification" console_shows b only-in-lab-b
  refute "lab a's console, signed in with lab a's link, does not show it" console_shows a only-in-lab-b
  class_consoles_guarded
}

# Every page and API of lab b's console without lab b's secret: 401 (a browser asking for a page is sent
# to the sign-in page instead), including reset and approve; lab a's link does not open it.
class_consoles_guarded() {
  local b code request bad=""
  b=http://127.0.0.1:$(console_port b)
  check "lab a's sign-in link on lab b's console: refused (401)" test "$(console_login b "$(env_of labs/a.env CONSOLE_SECRET)")" = 401
  check "... and gives no session there" test "$(in_ns curl -s -o /dev/null -w '%{http_code}' -b "$WORK/jar-b" "$b/api/state")" = 401
  rm -f "$WORK/jar-b"
  for request in "GET /" "GET /fields" "GET /openapi.json" "GET /console.js" "GET /api/session" "GET /api/state" \
    "GET /api/events" "GET /api/check" "POST /api/reset" "POST /api/approve" "POST /api/alert" "POST /api/check" "POST /api/clock"; do
    if [ "${request% *}" = POST ]; then
      code=$(in_ns curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X POST "$b${request#* }" \
        -H 'content-type: application/json' -H "origin: $b" -d '{}' || true)
    else
      code=$(in_ns curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$b${request#* }" || true)
    fi
    [ "$code" = 401 ] || bad="$bad $request:$code"
  done
  check "lab b's console without its secret answers 401 to every page and API, reset and approve included${bad:+ ($bad)}" test -z "$bad"
  code=$(in_ns curl -s -o /dev/null -w '%{http_code} %{redirect_url}' -H 'accept: text/html' -H 'sec-fetch-dest: document' "$b/")
  check "... a browser asking for its page is sent to the sign-in page ($code)" test "$code" = "303 $b/login"
}

# Event ids of lab a's last check (in its state: the checker leaves its last alert's records) that appear
# in lab b's state; "no event id" when lab a holds none (then the check proves nothing).
lab_b_holds_events_of_a() {
  local ids
  ids=$(sort -u "$WORK/a-event-ids" 2>/dev/null)
  [ -n "$ids" ] || { echo "no event id seen in lab a's state"; return 0; }
  in_ns bash -c 'LAB=b bash docker/lab.sh state' | grep -oFf <(echo "$ids") | head -n 3
}
# Collects the event ids lab a's state holds, every 2 s, into $WORK/a-event-ids (run in the background).
collect_a_event_ids() {
  while :; do
    # A state with no event id (grep finds nothing) must not end the loop (set -e).
    { in_ns bash -c 'LAB=a bash docker/lab.sh state' 2>/dev/null | grep -oE '"event_id": *"[^"]+"' |
      sed -E 's/.*"([^"]+)"$/"\1"/' >>"$WORK/a-event-ids"; } || true
    sleep 2
  done
}

# The journal of lab c, as one line per request (it must not move while a and b work).
journal_of() { in_ns bash -c "LAB=$1 bash docker/lab.sh state" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).journal.map(e=>e.at+" "+e.method+" "+e.path).join("\n")))'; }

class_side_by_side() {
  log "lab a resets and checks while lab b runs a check; lab c is left alone"
  local c_before b_pid b_rc=0 a_rc=0 started collect_pid
  c_before=$(journal_of c)
  make_lab solution LAB=a >/dev/null
  # A tools container that ends between docker ps and docker stats makes one sample fail ("EOF"): the
  # sampler goes on (set -e would end it, and stopping it would then end the test).
  (while :; do { lab_memory soar-lab-a 2>/dev/null || true; } >>"$WORK/class-stats"; echo >>"$WORK/class-stats"; sleep 3; done) &
  STATS_PID=$!
  make_lab check LAB=b STAGE=decide >"$WORK/check-b.log" 2>&1 &
  b_pid=$!
  collect_a_event_ids &
  collect_pid=$!
  started=$SECONDS
  make_lab acceptance LAB=a >"$WORK/acceptance-a.log" 2>&1 || a_rc=$?
  MATRIX_SECONDS=$((SECONDS - started))
  make_lab reset LAB=a >/dev/null 2>&1 || a_rc=$?
  make_lab check LAB=a STAGE=validate >"$WORK/check-a.log" 2>&1 || a_rc=$?
  wait "$b_pid" || b_rc=$?
  kill "$collect_pid" 2>/dev/null || true
  wait "$collect_pid" 2>/dev/null || true
  kill "$STATS_PID" 2>/dev/null || true
  wait "$STATS_PID" 2>/dev/null || true
  STATS_PID=""
  CLASS_PEAK_MIB=$(sort -n "$WORK/class-stats" | tail -n 1)
  tail -n 3 "$WORK/acceptance-a.log" | sed 's/^/        /'
  check "make acceptance LAB=a passes 8 of 8 on lab a's reference (${MATRIX_SECONDS} s)" json_get reports/a/acceptance-lab.json \
    'r.counts.pass === 8 && r.counts.fail === 0 || process.exit(1)'
  check "make reset LAB=a and make check LAB=a STAGE=validate pass (exit $a_rc)" test "$a_rc" = 0
  check "make check LAB=b STAGE=decide, at the same time, passes untouched by lab a (exit $b_rc)" test "$b_rc" = 0
  check "lab b's state holds none of the $(sort -u "$WORK/a-event-ids" | grep -c .) event ids lab a's state held meanwhile" \
    test -z "$(lab_b_holds_events_of_a)"
  check "lab c's journal did not move" test "$c_before" = "$(journal_of c)"
}

# The live class board, as the trainer runs it in a terminal of its own (stopped with SIGTERM at the end).
BOARD_PID=""
board_json() { in_ns curl -s --max-time 5 http://127.0.0.1:8080/class.json >"$WORK/board.json" 2>/dev/null; }
# board_shows EXPRESSION: within 5 s the board's /class.json satisfies EXPRESSION (over r, as json_get).
board_shows() {
  local deadline=$((SECONDS + 5))
  while :; do
    board_json && json_get "$WORK/board.json" "($1) || process.exit(1)" >/dev/null 2>&1 && return 0
    [ $SECONDS -lt $deadline ] || { json_get "$WORK/board.json" 'JSON.stringify(r.labs.map((l) => [l.name, l.state, l.checked_at]))' 2>/dev/null; return 1; }
    sleep 0.5
  done
}
class_board() {
  log "make class-board: the live class board"
  local checked_before
  if [ -n "$ENGINE_NETNS" ]; then
    ROSTER=$ROSTER_FILE nsenter --net="/var/run/netns/$ENGINE_NETNS" bash docker/lab.sh class-board >"$WORK/board.log" 2>&1 &
  else
    ROSTER=$ROSTER_FILE bash docker/lab.sh class-board >"$WORK/board.log" 2>&1 &
  fi
  BOARD_PID=$!
  for _ in $(seq 60); do grep -q 'the class board: http' "$WORK/board.log" && break; sleep 1; done
  check "make class-board serves the class on 127.0.0.1:8080 ($(grep -m 1 'class board' "$WORK/board.log" | cut -c1-80))" \
    board_shows "r.labs.length === 3 && r.labs.every((l) => l.state === 'running')"
  board_json
  checked_before=$(json_get "$WORK/board.json" "r.labs.find((l) => l.name === 'b').checked_at")
  make_lab check LAB=b STAGE=validate >/dev/null 2>&1 || true
  check "a check in lab b shows on the board within 5 s, without a reload of anything" \
    board_shows "r.labs.find((l) => l.name === 'b').checked_at !== '$checked_before' && r.labs.find((l) => l.name === 'b').requested === 'validate'"
  make_lab stop LAB=c >/dev/null 2>&1 || true
  check "make stop LAB=c: the board shows lab c stopped within 5 s" board_shows "r.labs.find((l) => l.name === 'c').state === 'stopped'"
}
board_stops() {
  [ -n "$BOARD_PID" ] || return 0
  kill -TERM "$BOARD_PID" 2>/dev/null || true
  for _ in $(seq 20); do kill -0 "$BOARD_PID" 2>/dev/null || break; sleep 0.5; done
  BOARD_PID=""
  check "the board stops on SIGTERM, leaving no container" test -z "$(docker ps -aq --filter name=soar-lab-class-board)"
}

class_report() {
  log "make class-report"
  local started=$SECONDS
  check "make down LAB=c while the board runs: the board lets go of lab c's reports, the lab goes" make_lab down LAB=c
  check "... the board shows lab c absent" board_shows "r.labs.find((l) => l.name === 'c').state === 'absent'"
  board_stops
  printf 'a\nb\nc\nd\n' >"$WORK/report-roster.txt"
  check "make class-report (a and b checked, c down, d never started)" make_lab class-report ROSTER="$WORK/report-roster.txt"
  REPORT_SECONDS=$((SECONDS - started))
  check "reports/class.json: a and b up with their stages, c down, d never checked" json_get reports/class.json \
    'JSON.stringify(r.labs.map((l) => [l.name, l.up, l.checked_at !== null])) === JSON.stringify([["a",true,true],["b",true,true],["c",false,false],["d",false,false]]) || process.exit(1)'
  check "reports/class.html and class.csv are written" test -s reports/class.html -a -s reports/class.csv
  check "class.csv: a header with the stages, one row per trainee" test \
    "$(head -n 1 reports/class.csv | grep -c ',webhook,validate,enrich,')$(grep -c '^b,running,' reports/class.csv)" = 11
  check "reports/class-history.csv: every check of lab b, one a line" test "$(grep -c '^b,' reports/class-history.csv)" -ge 2
}

lab_b_report() { json_get reports/class.json "r.labs.find((l) => l.name === 'b').$1"; }
down_then_up() { make_lab down LAB="$1" >/dev/null && make_lab up LAB="$1" >/dev/null; }

# A check run from lab b's console (its volume only holds it), then make down LAB=b and make up LAB=b (a
# fresh lab, an empty volume): the class report still shows it, from the reports the host kept.
class_check_kept() {
  log "a check from lab b's console, then make down LAB=b and make up LAB=b: the class report keeps it"
  local rc at lines
  rc=$(console_check_in b validate || true)
  check "lab b's console runs a check of validate, signed in with lab b's secret (exit $rc)" test "$rc" = 0
  check "make class-report" make_lab class-report ROSTER="$ROSTER_FILE"
  at=$(lab_b_report checked_at)
  lines=$(grep -c '^b,' reports/class-history.csv || true)
  check "... shows it: lab b's last check is the console's validate ($at), in the class history too" \
    test "$(lab_b_report requested)" = validate -a -n "$(grep "^b,$at," reports/class-history.csv)"
  check "make down LAB=b, then make up LAB=b" down_then_up b
  check "make class-report" make_lab class-report ROSTER="$ROSTER_FILE"
  check "... lab b's last check is still the console's ($(lab_b_report checked_at))" test "$(lab_b_report checked_at)" = "$at"
  check "... the class history still holds every check of lab b ($lines), the console's too" \
    test "$(grep -c '^b,' reports/class-history.csv || true)" = "$lines" -a -n "$(grep "^b,$at," reports/class-history.csv)"
  check "... kept on the host in reports/b/check-history.jsonl" grep -qF "\"at\":\"$at\"" reports/b/check-history.jsonl
}

class_down_one() {
  log "make down LAB=a leaves lab b running"
  local before
  before=$(docker ps -q --filter label=com.docker.compose.project=soar-lab-b | xargs docker inspect -f '{{.Id}} {{.State.StartedAt}}' | sort)
  check "make down LAB=a" make_lab down LAB=a
  check_nothing_left soar-lab-a "$ROOT/labs/a.env"
  check "lab b runs on, its containers untouched" test "$before" = \
    "$(docker ps -q --filter label=com.docker.compose.project=soar-lab-b | xargs docker inspect -f '{{.Id}} {{.State.StartedAt}}' | sort)"
}

# connection_refused URL: the connection to URL refused (curl's exit 7), its exit status printed; a
# connection that is made, whatever follows (a TLS hello, a status line, a close, a reset), is not.
connection_refused() {
  local rc=0
  in_ns curl -sk -o /dev/null --max-time 5 "$1" || rc=$?
  echo "curl exit $rc"
  [ "$rc" = 7 ]
}

# Published beyond loopback (LAB_BIND), the console answers on that address only and nothing but its
# login without the lab's secret; with it, the state.
bound_console_asks_for_the_secret() {
  local env=labs/offline.env port secret jar=$WORK/console.jar ca=$ROOT/labs/tls/class-ca.pem
  port=$(env_of "$env" LAB_CONSOLE_PORT)
  secret=$(env_of "$env" CONSOLE_SECRET)
  check "the settings hold a console secret for the published lab" test -n "$secret"
  # Off loopback the console speaks TLS only, with the class CA's certificate (docker/lab/tls.sh).
  check "without it: GET /api/state answers 401 on https://127.0.0.2:$port (curl trusting the class CA only)" \
    test "$(in_ns curl -s -o /dev/null -w '%{http_code}' --cacert "$ca" "https://127.0.0.2:$port/api/state")" = 401
  check "plain HTTP to 127.0.0.2:$port gets no answer (000: no status line)" \
    test "$(in_ns curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.2:$port/api/state")" = 000
  check "nothing listens on 127.0.0.1:$port (the connection refused: any answer, a TLS hello, a status line or none, fails)" \
    connection_refused "https://127.0.0.1:$port/"
  refute "control: the same probe at 127.0.0.2:$port connects" connection_refused "https://127.0.0.2:$port/"
  in_ns curl -s -o /dev/null --cacert "$ca" -c "$jar" -X POST "https://127.0.0.2:$port/login" \
    -H "origin: https://127.0.0.2:$port" --data-urlencode "secret=$secret" >/dev/null
  check "with the secret (POST /login), the console's state" \
    test "$(in_ns curl -s -o /dev/null -w '%{http_code}' --cacert "$ca" -b "$jar" "https://127.0.0.2:$port/api/state")" = 200
}

CLASS_BUNDLE=$WORK/soar-lab-images.tar.gz
# make bundle only reads the images, and the class goes: beside the other parts.
class_bundle() {
  log "offline: make bundle, make class-down"
  check "make bundle LAB_BUNDLE=..." make_lab bundle LAB_BUNDLE="$CLASS_BUNDLE"
  BUNDLE_MB=$(($(stat -c %s "$CLASS_BUNDLE" 2>/dev/null || echo 0) / 1000000))
  check "make class-down removes the class" make_lab class-down ROSTER="$ROSTER_FILE"
  check_nothing_left soar-lab-b "$ROOT/labs/b.env"
}
# The images removed from the engine, which every new container of every lab needs: with no lab of another
# part running (test/lab/run.sh), so that they are gone indeed, not only untagged.
class_offline() {
  log "offline: the images removed, make up LAB_BUNDLE=..."
  local image
  for image in soar-lab/mock-api:1.2.0 soar-lab/walls:1.2.0 n8nio/n8n:2.41.1 postgres:16.4-alpine; do
    docker rmi -f "$image" >/dev/null 2>&1 || true
  done
  check "control: the lab's images are gone from the engine" test -z "$(docker images -q n8nio/n8n:2.41.1)"
  check "make up LAB=offline LAB_BUNDLE=... LAB_BIND=127.0.0.2 loads the images and starts (no registry, no build)" \
    make_lab up LAB=offline LAB_BUNDLE="$CLASS_BUNDLE" LAB_BIND=127.0.0.2
  bound_console_asks_for_the_secret
  check "make solution LAB=offline, then make check LAB=offline STAGE=validate passes" solution_then_check offline validate
  check "make down LAB=offline" make_lab down LAB=offline
  check_nothing_left soar-lab-offline "$ROOT/labs/offline.env"
}
