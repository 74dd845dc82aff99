# shellcheck shell=bash
# The walls after the lab's containers stop without their say (sourced by test/engine/run.sh once the
# walls' own probes are done): after a reboot-like stop and after an engine restart, Docker starts a
# lab's containers again in any order, and the lab must serve nothing to the classroom until the walls'
# rules are back. Each is made the worst order on purpose: the console back first, the walls last.
#   needs: PROJECT, CONSOLE, CONSOLE_PORT, STARTED_ENGINE and ENGINE_NETNS (a private engine), REACH,
#   wait_until, walls_rules, walls_all_back, in_engine_ns (test/engine/walls.sh), TOOLS (test/lib/engine.sh)

# console_silent: no status line from the console's published port, for 5 s (a refused connection is
# fine: nothing listens; a status line, whatever it says, is the console serving).
console_silent() {
  local said
  for _ in 1 2 3 4 5; do
    said=$(in_engine_ns node -e "$REACH" "http://127.0.0.1:$CONSOLE_PORT/api/session" 2>&1 || true)
    echo "$said"
    grep -q 'answered' <<<"$said" && return 1
    sleep 1
  done
  return 0
}
console_answers() { in_engine_ns node -e "$REACH" "http://127.0.0.1:$CONSOLE_PORT/api/session" | grep 'answered "HTTP/1.1 '; }
# console_waiting SINCE: the console's log since SINCE (docker logs' --since) says it waits for the walls
# (its earlier starts' lines do not count).
console_waiting() { docker logs --since "$1" "$CONSOLE" 2>&1 | grep -q "waiting for the lab's walls"; }
walls_drop_rules() { # as a reboot would: every rule of the lab's walls, gone
  local rule words
  # (None left is fine: the walls remove theirs when they are stopped; grep's "no match" ends nothing.)
  in_engine_ns "$STARTED_ENGINE/bin/iptables" -w -t raw -S PREROUTING | { grep 'soar-lab:soar-ac1e42' || true; } | sed 's/^-A /-D /' |
    while read -r rule; do
      # The rule's own words, its comment quoted as iptables -S prints it: split as a shell would.
      eval "words=($rule)"
      in_engine_ns "$STARTED_ENGINE/bin/iptables" -w -t raw "${words[@]}"
    done
}
lab_healthy() {
  local c
  for c in $(docker ps -aq --filter "label=com.docker.compose.project=$PROJECT"); do
    [ "$(docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}' "$c")" = healthy ] || return 1
  done
}
start_exited() {
  local c
  for c in $(docker ps -aq --filter "label=com.docker.compose.project=$PROJECT" --filter status=exited); do
    docker start "$c" >/dev/null
  done
}

# A reboot-like stop: every container of the lab killed (SIGKILL: no clean-up runs, as at a power cut)
# and the walls' rules gone (a reboot empties the firewall). The console started first must serve
# nothing (no status line on its published port) until the walls are back; then the walls, and the
# console serves. The control: the rules come back and the same probe gets the console's answer.
walls_reboot() {
  local walls since
  log "the walls after a reboot-like stop: the console serves nothing until the rules are back"
  walls=$(container_of "$PROJECT" walls)
  # shellcheck disable=SC2046 # container ids
  docker kill $(docker ps -q --filter "label=com.docker.compose.project=$PROJECT") >/dev/null
  walls_drop_rules
  check "every container of the lab killed, the walls' rules gone ($(walls_rules) left)" test "$(walls_rules)" = 0
  since=$(date +%s)
  docker start "$CONSOLE" >/dev/null
  check "the console, started first, waits for the walls (its log since this start)" wait_until 20 console_waiting "$since"
  check "... and serves nothing on its published port meanwhile (no status line for 5 s)" console_silent
  docker start "$walls" >/dev/null
  check "the walls, started after it, put their four rules back" wait_until 30 walls_all_back
  check "control: then the console answers on its published port" wait_until 30 console_answers
  start_exited
  check "the whole lab healthy again" wait_until 180 lab_healthy
}

# An engine restart: dockerd stopped (it stops every container: the walls remove their rules) and
# started again in the same namespace, which starts the lab's containers by their restart policy. The
# walls' container is set not to restart for this once, so that the console comes back without them
# (the order an engine may choose); it must serve nothing until the walls are started by hand and
# their rules are back. The walls' restart policy is put back as compose made it.
engine_stopped() { ! docker info >/dev/null 2>&1 && ! kill -0 "$1" 2>/dev/null; }
console_running() { [ "$(docker inspect -f '{{.State.Running}}' "$CONSOLE")" = true ]; }
walls_engine_restart() {
  local walls policy pid since line
  log "the walls after an engine restart: the console serves nothing until the rules are back"
  walls=$(container_of "$PROJECT" walls)
  policy=$(docker inspect -f '{{.HostConfig.RestartPolicy.Name}}' "$walls")
  docker update --restart=no "$walls" >/dev/null
  pid=$(cat "$STARTED_ENGINE/state/dockerd.pid")
  kill -TERM "$pid"
  check "the engine stops (dockerd, pid $pid, within 60 s)" wait_until 60 engine_stopped "$pid"
  walls_drop_rules
  check "the walls' rules gone with it ($(walls_rules) left)" test "$(walls_rules)" = 0
  since=$(date +%s)
  # (Its failure is a failed check, not the test's end: the clean-up needs the engine, and says so.)
  line=$(LAB_ENGINE_DEBIAN=trixie LAB_ENGINE_DIR=$STARTED_ENGINE LAB_ENGINE_NETNS=$ENGINE_NETNS bash "$TOOLS/start.sh" 7200 2>&1 | tail -n 1) || true
  check "the engine starts again in the same namespace ($line)" test "$line" = "DOCKER_HOST=$DOCKER_HOST"
  check "the engine starts the console by its restart policy" wait_until 60 console_running
  check "the walls stay stopped (restart policy no, for this once)" test "$(docker inspect -f '{{.State.Running}}' "$walls")" = false
  check "the console waits for the walls (its log since the engine's start)" wait_until 30 console_waiting "$since"
  check "... and serves nothing on its published port meanwhile (no status line for 5 s)" console_silent
  docker update --restart="$policy" "$walls" >/dev/null
  docker start "$walls" >/dev/null
  check "the walls, started by hand, put their four rules back (restart policy $policy again)" wait_until 30 walls_all_back
  check "control: then the console answers on its published port" wait_until 150 console_answers
  start_exited
  check "the whole lab healthy again" wait_until 180 lab_healthy
}
