# shellcheck shell=bash
# The live class board (make class-board ROSTER=<file>): one page for the trainer, trainee by stage, that
# updates itself as checks land. The page is served by a container of the lab's image that reads each
# lab's reports volume read-only, on a network of its own, with no Docker socket and no route into any
# lab. This side stays in the foreground and, every 2 s, writes the labs' states (from `docker ps -a`)
# into a host folder the container reads; Ctrl-C (or SIGTERM) stops both. Also the class report from the
# same inputs (cmd_class_report_from_labs) and what `make down` calls first (board_release).
# Sourced by docker/lab.sh; defines functions only. Uses common.sh (say, die, since, in_range,
# random_hex) and class.sh (class_names, need_docker via compose.sh).

BOARD_CONTAINER=soar-lab-class-board
BOARD_NETWORK=soar-lab-class-board
BOARD_IMAGE=$LAB_IMAGE
# A lab's services that `make up` runs (tools runs one-shot and is never counted).
BOARD_SERVICES="mock-api console postgres n8n"
BOARD_EVERY=2
# States older than this: the loop that writes them is gone (the board says so past 10 s).
BOARD_FRESH_SECONDS=10

board_dir() { echo "$LAB_DIR/labs/class-board"; }
board_env_file() { echo "$LAB_DIR/labs/class-board.env"; }
board_volume() { echo "soar-lab-$1_lab-reports"; }

# board_states: one line per roster lab ($CLASS), "NAME STATE [DETAIL]", from one `docker ps -a`: all six
# services running and healthy = running; all six stopped = stopped; none = absent; else broken, and why.
board_states() {
  local ps project service state status lab name missing detail
  local -A count=() seen=() exited=() bad=()
  ps=$(docker ps -a --filter label=com.docker.compose.project \
    --format '{{.Label "com.docker.compose.project"}} {{.Label "com.docker.compose.service"}} {{.State}} {{.Status}}') || return 1
  while read -r project service state status; do
    [[ $project == soar-lab-* ]] || continue
    lab=${project#soar-lab-}
    case " $BOARD_SERVICES " in *" $service "*) ;; *) continue ;; esac
    count[$lab]=$((${count[$lab]:-0} + 1))
    seen[$lab]="${seen[$lab]:-} $service"
    case "$state" in
      running)
        case "$status" in
          *"(unhealthy)"*) bad[$lab]="${bad[$lab]:-}, $service unhealthy" ;;
          *"(health: starting)"*) bad[$lab]="${bad[$lab]:-}, $service starting" ;;
        esac
        ;;
      exited | created)
        exited[$lab]=$((${exited[$lab]:-0} + 1))
        bad[$lab]="${bad[$lab]:-}, $service $state"
        ;;
      *) bad[$lab]="${bad[$lab]:-}, $service $state" ;;
    esac
  done <<<"$ps"
  for name in $CLASS; do
    missing=""
    for service in $BOARD_SERVICES; do
      case "${seen[$name]:-} " in *" $service "*) ;; *) missing="$missing, $service missing" ;; esac
    done
    detail="$missing${bad[$name]:-}"
    if [ -z "${count[$name]:-}" ]; then
      echo "$name absent"
    elif [ -z "$detail" ]; then
      echo "$name running"
    elif [ -z "$missing" ] && [ "${exited[$name]:-0}" -eq "${count[$name]}" ]; then
      echo "$name stopped"
    else
      echo "$name broken ${detail#, }"
    fi
  done
}

# board_url NAME SETTING: the lab's editor or console URL (no secret) from labs/NAME.env as JSON, or null.
board_url() {
  local key value bind=127.0.0.1 port="" file="$LAB_DIR/labs/$1.env"
  if [ -f "$file" ]; then
    while IFS='=' read -r key value; do
      case "$key" in LAB_BIND) bind=$value ;; "$2") port=$value ;; esac
    done <"$file"
  fi
  if [[ $port =~ ^[0-9]{1,5}$ && $bind =~ ^[0-9.]{7,15}$ ]]; then echo "\"$(scheme_of_bind "$bind")://$bind:$port\""; else echo null; fi
}

# board_write_states DIR LINES: DIR/states.json from board_states' lines, whole or not at all (temp + mv),
# readable by the board's uid whatever this user's umask.
board_write_states() {
  local dir=$1 name state detail sep="" json tmp
  json="{\"at\":\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\",\"labs\":["
  while read -r name state detail; do
    [ -n "$name" ] || continue
    json="$json$sep{\"name\":\"$name\",\"state\":\"$state\",\"detail\":\"${detail//\"/}\",\"editor_url\":$(board_url "$name" LAB_EDITOR_PORT),\"console_url\":$(board_url "$name" LAB_CONSOLE_PORT)}"
    sep=,
  done <<<"$2"
  tmp=$(mktemp "$dir/.states.XXXXXX") || return 1
  printf '%s]}\n' "$json" >"$tmp" && chmod 644 "$tmp" && mv -f "$tmp" "$dir/states.json"
}

# The roster's labs whose reports volume exists and that no `make down` asked the board to let go of.
board_volumes() {
  local volumes name dir
  dir=$(board_dir)
  volumes=$(docker volume ls -q --filter name=_lab-reports) || return 1
  for name in $CLASS; do
    grep -qx "$(board_volume "$name")" <<<"$volumes" || continue
    [ -e "$dir/release-$name" ] || echo "$name"
  done
}

# A release is done once the lab's volume is gone, and forgotten after 2 minutes (the down was refused).
board_clear_releases() {
  local f name dir
  dir=$(board_dir)
  for f in "$dir"/release-*; do
    [ -e "$f" ] || continue
    name=${f##*/release-}
    if ! docker volume inspect "$(board_volume "$name")" >/dev/null 2>&1 || [ $(($(date +%s) - $(stat -c %Y "$f"))) -gt 120 ]; then
      rm -f "$f"
    fi
  done
}

board_mounts() {
  local mounts
  mounts=$(docker container inspect -f '{{range .Mounts}}{{.Name}} {{end}}' "$BOARD_CONTAINER" 2>/dev/null) || return 1
  [[ " $mounts " == *" $(board_volume "$1") "* ]]
}

# The states were written within BOARD_FRESH_SECONDS: a board loop is alive.
board_fresh() {
  local file
  file="$(board_dir)/states.json"
  [ -f "$file" ] && [ $(($(date +%s) - $(stat -c %Y "$file"))) -le "$BOARD_FRESH_SECONDS" ]
}

board_running() { [ "$(docker container inspect -f '{{.State.Running}}' "$BOARD_CONTAINER" 2>/dev/null)" = true ]; }

# Where the board is: its URL, and its sign-in link when it has a secret.
board_where() {
  local address secret
  address=$(docker port "$BOARD_CONTAINER" 8080/tcp 2>/dev/null | head -n 1)
  secret=$(sed -n 's/^CLASS_BOARD_SECRET=//p' "$(board_env_file)" 2>/dev/null | tail -n 1)
  if [ -n "$secret" ] && [ "${address%:*}" != 127.0.0.1 ]; then
    echo "https://$address/login#secret=$secret"
  else
    echo "http://$address/"
  fi
}

# The board's own secret, made once (labs/class-board.env, private: 600 whatever the caller's umask, the
# file opened after the umask is set, and a file an older version left readable made private), for a
# board published beyond loopback. Prints the secret only (the message goes to stderr).
board_secret() {
  local file
  file=$(board_env_file)
  if ! grep -q '^CLASS_BOARD_SECRET=' "$file" 2>/dev/null; then
    mkdir -p "$(dirname "$file")"
    (
      umask 077
      {
        echo "# Written by \`make class-board\` (docker/lab/board.sh): the class board's secret. Never commit it."
        echo "CLASS_BOARD_SECRET=$(random_hex 16)"
      } >"$file"
    )
    say "wrote the class board's secret to ${file#"$LAB_DIR"/}" >&2
  fi
  chmod 600 "$file"
  sed -n 's/^CLASS_BOARD_SECRET=//p' "$file" | tail -n 1
}

# board_start "NAMES" BIND PORT SECRET: the board's container, reading the named labs' volumes.
board_start() {
  local name mounts=()
  for name in $1; do mounts+=(--mount "type=volume,source=$(board_volume "$name"),target=/labs/$name,readonly"); done
  docker rm -f "$BOARD_CONTAINER" >/dev/null 2>&1 || true
  CLASS_BOARD_SECRET=$4 BOARD_TLS_CERT=${BOARD_TLS_CERT:-} BOARD_TLS_KEY=${BOARD_TLS_KEY:-} BOARD_CA_CERT=${BOARD_CA_CERT:-} docker run -d --rm --name "$BOARD_CONTAINER" --label soar-lab.class-board=1 \
    --read-only --cap-drop ALL --security-opt no-new-privileges --user 1000:1000 --init \
    --memory 128m --pids-limit 64 --tmpfs /tmp:size=1m \
    --network "$BOARD_NETWORK" -p "$2:$3:8080" \
    -e BOARD_HOST=0.0.0.0 -e BOARD_PORT=8080 -e BOARD_LABS=/labs -e BOARD_SAVED=/saved \
    -e BOARD_STATES=/board/states.json -e BOARD_ALLOWED_HOSTS="$2" -e CLASS_BOARD_SECRET \
    -e BOARD_TLS_CERT -e BOARD_TLS_KEY -e BOARD_CA_CERT -e BOARD_PUBLIC_PORT="$3" \
    --mount "type=bind,source=$(board_dir),target=/board,readonly" \
    --mount "type=bind,source=$ROOT/reports,target=/saved,readonly" \
    ${mounts[@]+"${mounts[@]}"} "$BOARD_IMAGE" node dist/app/classroom/board-main.js >/dev/null
}

# Its own bridge, from the lab's address plan rather than Docker's pool; no masquerading: nothing goes out.
board_network() {
  docker network inspect "$BOARD_NETWORK" >/dev/null 2>&1 && return 0
  docker network create --driver bridge --subnet "${CLASS_BOARD_SUBNET:-172.30.65.0/28}" \
    -o com.docker.network.bridge.enable_ip_masquerade=false "$BOARD_NETWORK" >/dev/null ||
    die "could not make the board's network $BOARD_NETWORK (CLASS_BOARD_SUBNET=${CLASS_BOARD_SUBNET:-172.30.65.0/28} taken? give another /28)"
}

board_stop() {
  trap - INT TERM EXIT
  docker stop -t 5 "$BOARD_CONTAINER" >/dev/null 2>&1 || true
  docker rm -f "$BOARD_CONTAINER" >/dev/null 2>&1 || true
  docker network rm "$BOARD_NETWORK" >/dev/null 2>&1 || true
  rm -f "$(board_dir)"/states.json "$(board_dir)"/.states.* "$(board_dir)"/release-*
  say "the class board stopped"
}

cmd_class_board() {
  local port=${CLASS_BOARD_PORT:-8080} bind=${LAB_BIND:-127.0.0.1} dir secret="" mounted want states i curl_tls BOARD_TLS_CERT BOARD_TLS_KEY BOARD_CA_CERT
  class_names
  need_docker
  in_range "$port" 1 65535 || die "CLASS_BOARD_PORT=$port is not a port number (1-65535)"
  [[ $bind =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ ]] || die "LAB_BIND=$bind is not an IPv4 address of this machine"
  [ "$bind" != 0.0.0.0 ] || die "LAB_BIND=0.0.0.0 would publish the board on every address: give this machine's address"
  case " $(echo "$CLASS" | tr '\n' ' ') " in *" class-board "*) die "ROSTER=$ROSTER names a lab class-board, the board's own name" ;; esac
  dir=$(board_dir)
  if board_running; then
    if board_fresh; then
      say "the class board runs already: $(board_where) (Ctrl-C where it runs stops it)"
      return 0
    fi
    say "a class board was left without its loop: starting it again"
  fi
  docker image inspect "$BOARD_IMAGE" >/dev/null 2>&1 || die "the lab's image $BOARD_IMAGE is not on this engine (make class-up first)"
  board_running || ! (: <"/dev/tcp/$bind/$port") 2>/dev/null ||
    die "$bind:$port is in use: make class-board ROSTER=$ROSTER CLASS_BOARD_PORT=<another port>"
  mkdir -p "$dir" "$ROOT/reports"
  chmod 755 "$dir"
  BOARD_TLS_CERT="" BOARD_TLS_KEY="" BOARD_CA_CERT="" curl_tls=()
  if [ "$(scheme_of_bind "$bind")" = https ]; then
    secret=$(board_secret)
    # On a classroom address the board speaks TLS only, with the address's certificate (docker/lab/tls.sh).
    LAB_BIND=$bind LAB_SCHEME=https tls_lab_env
    BOARD_TLS_CERT=$CONSOLE_TLS_CERT BOARD_TLS_KEY=$CONSOLE_TLS_KEY
    curl_tls=(--cacert "$(tls_dir)/class-ca.pem")
    # The page shows the class CA's fingerprint and offers its file, unless the trainer gave their own
    # certificate (LAB_TLS_CERT), which the class CA did not sign.
    if [ -f "$(tls_dir)/$bind.own" ]; then curl_tls=(-k); else BOARD_CA_CERT=$(cat "$(tls_dir)/class-ca.pem"); fi
  fi
  states=$(board_states) || die "could not read the labs' states from Docker"
  board_write_states "$dir" "$states" || die "could not write $dir/states.json"
  board_network
  trap board_stop EXIT
  trap 'exit 0' INT TERM
  mounted=$(board_volumes) || mounted=""
  board_start "$mounted" "$bind" "$port" "$secret" || die "the board's container did not start"
  for ((i = 0; i < 40; i++)); do
    curl -fsS ${curl_tls[@]+"${curl_tls[@]}"} -o /dev/null "$([ -n "$BOARD_TLS_CERT" ] && echo https || echo http)://$bind:$port/health" 2>/dev/null && break
    sleep 0.5
  done
  say "the class board: $(board_where)   ($(echo "$CLASS" | wc -w) labs; Ctrl-C stops it)"
  [ -z "$BOARD_TLS_CERT" ] || say "$(tls_roster_lines "$bind" | sed 's/^# //')"
  while true; do
    if states=$(board_states); then board_write_states "$dir" "$states" || true; else say "Docker did not answer; the board's lab states wait"; fi
    board_clear_releases
    if want=$(board_volumes) && [ "$want" != "$mounted" ]; then
      say "the board reads again: $(echo "${want:-no lab}" | tr '\n' ' ')(a lab's reports came or went)"
      board_start "$want" "$bind" "$port" "$secret" || die "the board's container did not start again"
      mounted=$want
    fi
    board_running || die "the board's container stopped (docker logs $BOARD_CONTAINER is gone with it; run make class-board again)"
    sleep "$BOARD_EVERY" &
    wait $! || true
  done
}

# board_release NAME, for `make down LAB=NAME` before it removes the lab's volumes: the engine refuses to
# remove a volume a container mounts, so a running board lets go of NAME's (its loop restarts it without).
board_release() {
  local i
  board_mounts "$1" || return 0
  if ! board_fresh; then
    docker rm -f "$BOARD_CONTAINER" >/dev/null 2>&1 || true
    return 0
  fi
  : >"$(board_dir)/release-$1"
  for ((i = 0; i < 30; i++)); do
    board_mounts "$1" || return 0
    sleep 0.5
  done
  echo "lab: the class board still reads lab $1's reports; stop it (Ctrl-C) if the removal fails" >&2
}

# The class report from the inputs the board reads (each lab's reports volume read-only, the host's copies,
# the labs' states), by the same code, in throwaway containers of the lab's image with no network:
# reports/class.html, class.json, class.csv and class-history.csv.
cmd_class_report_from_labs() {
  local start=$SECONDS name format out states dir err mounts=()
  class_names
  need_docker
  docker image inspect "$BOARD_IMAGE" >/dev/null 2>&1 || die "the lab's image $BOARD_IMAGE is not on this engine (make class-up first)"
  mkdir -p "$ROOT/reports"
  dir=$(mktemp -d)
  chmod 755 "$dir"
  states=$(board_states) || { rm -rf "$dir"; die "could not read the labs' states from Docker"; }
  board_write_states "$dir" "$states"
  for name in $CLASS; do
    docker volume inspect "$(board_volume "$name")" >/dev/null 2>&1 &&
      mounts+=(--mount "type=volume,source=$(board_volume "$name"),target=/labs/$name,readonly")
  done
  for format in html json csv history-csv; do
    out=class.$format
    [ "$format" != history-csv ] || out=class-history.csv
    docker run --rm --network none --read-only --cap-drop ALL --security-opt no-new-privileges --user 1000:1000 \
      --mount "type=bind,source=$dir,target=/board,readonly" --mount "type=bind,source=$ROOT/reports,target=/saved,readonly" \
      ${mounts[@]+"${mounts[@]}"} "$BOARD_IMAGE" node dist/app/classroom/report-cli.js --format "$format" \
      --labs /labs --saved /saved --states /board/states.json >"$ROOT/reports/$out.part" 2>"$dir/error" ||
      { err=$(cat "$dir/error"); rm -rf "$dir" "$ROOT/reports/$out.part"; die_with "$err" "could not render the class report ($format)"; }
    mv "$ROOT/reports/$out.part" "$ROOT/reports/$out"
  done
  rm -rf "$dir"
  say "class report: reports/class.html, class.json, class.csv, class-history.csv ($(echo "$CLASS" | wc -w) labs, $(since "$start") s)"
}
