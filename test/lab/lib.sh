# shellcheck shell=bash
# Helpers of the real-lab test (test/lab/run.sh): running the trainer's commands as a trainer types them,
# in the engine's network namespace and without Node.js; reading a lab's containers; the hardening check.
#   needs: ROOT, WORK, ENGINE_NETNS (empty: the engine at $DOCKER_HOST), test/lib/engine.sh sourced

# tree_of PID: PID and every process under it, one a line. kill_tree PID: all of them ended at once, by id
# (a part's subshell, timeout, node and Chromium), so the shell above cannot start another in between.
tree_of() {
  local child
  echo "$1"
  for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do tree_of "$child"; done
}
kill_tree() {
  # shellcheck disable=SC2046 # one pid a word
  kill $(tree_of "$1") 2>/dev/null || true
}

# In the engine's namespace when it is ours (its published ports live there), else as it is.
in_ns() {
  if [ -n "$ENGINE_NETNS" ]; then nsenter --net="/var/run/netns/$ENGINE_NETNS" "$@"; else "$@"; fi
}

# without_node COMMAND...: COMMAND in a mount namespace where node, npm and npx are not executable (each
# covered by /dev/null), as on a trainer's host that has Docker, Compose and make only.
without_node() {
  # shellcheck disable=SC2016 # the inner script expands its own variables
  unshare --mount --propagation private bash -c '
    for tool in node npm npx; do
      for path in $(type -P -a "$tool" 2>/dev/null); do mount --bind /dev/null "$path"; done
    done
    exec "$@"' without-node "$@"
}

# as_trainer COMMAND...: a program (not a function) in the engine's namespace, without Node.js.
as_trainer() {
  if [ -n "$ENGINE_NETNS" ]; then
    without_node nsenter --net="/var/run/netns/$ENGINE_NETNS" "$@"
  else
    without_node "$@"
  fi
}

# Creating a named lab chooses the first free slot (docker/lab/preflight.sh free_slot), seen from the
# engine's networks and ports and the settings files of the lab's own folder: two creations at once, from
# two parts or from two folders, could choose the same slot. The default lab has a fixed slot of its own.
LAB_CREATE_LOCK=$WORK/lab-create.lock
export LAB_CREATE_LOCK

# lab_create_lock COMMAND...: COMMAND (a function or a program) alone among the lab creations of every
# part: `make up LAB=...`, `make class-up` (make_lab takes it by itself). Waits 30 minutes at most.
lab_create_lock() {
  local fd rc=0
  exec {fd}>>"$LAB_CREATE_LOCK"
  flock -w 1800 "$fd" || { echo "lab_create_lock: another part held the lab creation lock 30 minutes"; exec {fd}>&-; return 1; }
  "$@" || rc=$?
  exec {fd}>&-
  return "$rc"
}

# make_lab TARGET [VAR=VALUE...]: `make TARGET ...` as a trainer runs it (no Node.js), bounded in time; the
# creation of a named lab under lab_create_lock, unless its settings are given (the default lab's are).
make_lab() {
  case "$1 ${*:2}" in
    *" LAB_SUBNET="*) make_lab_now "$@" ;;
    "class-up "* | "up "*LAB=[a-z0-9]*) lab_create_lock make_lab_now "$@" ;;
    *) make_lab_now "$@" ;;
  esac
}
make_lab_now() { as_trainer timeout "${LAB_STEP_TIMEOUT:-900}" make -s --no-print-directory "$@"; }

# node -e inside a container: fetch URL within 3 s, exit 0 on a 2xx answer, print status or error.
FETCH='process.on("beforeExit",()=>{console.log("closed without an answer");process.exit(1)});const u=process.argv[1];fetch(u,{signal:AbortSignal.timeout(3000)}).then(async r=>{console.log(r.status,(await r.text()).slice(0,200));process.exit(r.ok?0:1)},e=>{console.log("error",e.cause?.code??e.name);process.exit(1)})'
fetch_in() { timeout 20 docker exec "$1" node -e "$FETCH" "$2"; }

# The status code of an HTTP request from the engine's namespace: http_code METHOD URL [JSON].
http_code() {
  in_ns curl -s -o /dev/null -w '%{http_code}' -X "$1" "$2" -H 'content-type: application/json' ${3:+-d "$3"}
}

# hardening_of CONTAINER UID: every process runs as UID (real, effective, saved, fs), with no capability
# (effective, permitted, bounding), NoNewPrivs, and a read-only root mount. A process that exits between
# `docker top` and the read of its /proc files (n8n starts short-lived ones) is passed over,
# only when its /proc entry is gone; at least one process must have been read.
hardening_of() {
  local pid status mounts uids caps nnp root bad="" seen=0
  [ -n "$1" ] || { echo "no container"; return 1; }
  for pid in $(docker top "$1" -eo pid | tail -n +2); do
    if ! status=$(cat "/proc/$pid/status" 2>/dev/null) || ! mounts=$(cat "/proc/$pid/mountinfo" 2>/dev/null); then
      if [ -e "/proc/$pid" ]; then bad="$bad pid $pid unreadable;"; fi
      continue
    fi
    seen=$((seen + 1))
    uids=$(awk '/^Uid:/ {print $2, $3, $4, $5}' <<<"$status")
    caps=$(awk '/^Cap(Eff|Prm|Bnd):/ {printf "%s ", $2}' <<<"$status")
    nnp=$(awk '/^NoNewPrivs:/ {print $2}' <<<"$status")
    root=$(awk '$5 == "/" {split($6, o, ","); print o[1]; exit}' <<<"$mounts")
    [ "$uids" = "$2 $2 $2 $2" ] || bad="$bad pid $pid uids $uids;"
    [ "$caps" = "0000000000000000 0000000000000000 0000000000000000 " ] || bad="$bad pid $pid caps $caps;"
    [ "$nnp" = 1 ] || bad="$bad pid $pid NoNewPrivs $nnp;"
    [ "$root" = ro ] || bad="$bad pid $pid root $root;"
  done
  [ "$seen" -gt 0 ] || bad="$bad no process read;"
  [ -z "$bad" ] || { echo "$bad"; return 1; }
}

# Total MiB of a project's containers now (docker stats).
lab_memory() {
  # shellcheck disable=SC2046 # one container id a word
  docker stats --no-stream --format '{{.MemUsage}}' $(docker ps -q --filter "label=com.docker.compose.project=$1") |
    awk '{v = $1; u = v; gsub(/[0-9.]/, "", u); sub(/[A-Za-z]+$/, "", v);
      f = (u == "GiB") ? 1024 : (u == "MiB") ? 1 : (u == "KiB") ? 1 / 1024 : 1 / 1048576; t += v * f}
      END {printf "%d", t}'
}

# cpu_limits PROJECT: "service=cores ..." of a project's running containers, as the engine applies them,
# in byte order whatever the locale (n8n-front before n8n, were it a service).
cpu_limits() {
  docker ps -q --filter "label=com.docker.compose.project=$1" | xargs -r docker inspect \
    -f '{{index .Config.Labels "com.docker.compose.service"}} {{.HostConfig.NanoCpus}}' |
    awk '{ printf "%s=%g\n", $1, $2 / 1e9 }' | LC_ALL=C sort | paste -sd ' '
}

# has_cpu_limits PROJECT "service=cores ...": the project's limits are these; else says which it read.
has_cpu_limits() {
  local read
  read=$(cpu_limits "$1")
  [ "$read" = "$2" ] || { echo "read: ${read:-none}"; return 1; }
}

# A lab's setting or secret from its settings file: env_of ENV_FILE NAME.
env_of() { sed -n "s/^$2=//p" "$1" | tail -n 1; }

# A JSON value read with the engine namespace's node (the test's own tool, not the trainer's):
# json_get FILE EXPRESSION, EXPRESSION over `r`, e.g. 'r.counts.pass'.
json_get() { node -e "const r=JSON.parse(require('fs').readFileSync(process.argv[1],'utf8'));console.log($2)" "$1"; }

# The lines a command printed, without make's own closing "make: *** [...] Error N" ("make[N]: ***" when the
# test itself runs under make, as `make test-lab` does).
said_lines() { grep -Evc '^make(\[[0-9]+\])?: \*\*\* ' <<<"$1"; }

# refuse_running_lab TAG: one line and exit 1 when a lab of this checkout is running (.env or labs/*.env):
# the tests never touch a trainer's lab.
refuse_running_lab() {
  if [ -e .env ] || [ -n "$(ls labs/*.env 2>/dev/null)" ]; then
    echo "$1: a lab of this checkout is running (.env or labs/*.env): make down first" >&2
    exit 1
  fi
}

# test_engine_up: the tests' engine, $DOCKER_HOST when it answers, else the private one
# (LAB_TEST_ENGINE_DIR), with BuildKit. Our private engine keeps its images between runs, and whatever a
# run that was killed left behind: containers, networks and volumes go (a stale network overlaps the next
# run's, a stale volume holds an old lab's database); the images stay. An engine not ours is left as it is.
test_engine_up() {
  start_engine "${LAB_TEST_ENGINE_DIR:-/tmp/soar-lab-test-engine}" "${LAB_TEST_NETNS:-soar-lab-test}"
  require_buildkit
  if [ -n "$STARTED_ENGINE" ]; then
    docker ps -aq | xargs -r docker rm -f >/dev/null
    docker network prune -f >/dev/null
    docker volume prune -af >/dev/null
  fi
}

# A lab's console port, from its settings file.
console_port() { env_of "labs/$1.env" LAB_CONSOLE_PORT; }
# console_sign_in URL SECRET JAR: POST /login on the console at URL as the sign-in link's page does (from its
# origin, the secret as a form); prints the status, the session (if any) in the cookie jar JAR.
console_sign_in() {
  in_ns curl -s -o /dev/null -w '%{http_code}' -c "$3" -X POST "$1/login" -H "origin: $1" --data-urlencode "secret=$2"
}
# console_login LAB SECRET: console_sign_in on LAB's console; the session (if any) in $WORK/jar-LAB.
console_login() {
  local port
  port=$(console_port "$1")
  rm -f "$WORK/jar-$1"
  console_sign_in "http://127.0.0.1:$port" "$2" "$WORK/jar-$1"
}

# console_check_in LAB STAGE [ONLY] [OUT]: the console's Check as its page runs it, signed in with the lab's
# own secret (POST /login, the page's token from GET /api/session, POST /api/check with the stage and,
# ONLY=true, on its own; GET /api/check every 2 s until the run ends); the run's view in OUT (default
# $WORK/console-check-LAB.json), its exit code printed. curl and sed only: a class polls at once.
console_check_in() {
  local url jar=$WORK/jar-$1 token code out=${4:-$WORK/console-check-$1.json}
  url=http://127.0.0.1:$(console_port "$1")
  console_login "$1" "$(env_of "labs/$1.env" CONSOLE_SECRET)" >/dev/null
  token=$(in_ns curl -s -b "$jar" "$url/api/session" | sed -E 's/.*"token":"([^"]+)".*/\1/')
  code=$(in_ns curl -s -o /dev/null -w '%{http_code}' -b "$jar" -X POST "$url/api/check" -H 'content-type: application/json' \
    -H "origin: $url" -H "x-console-token: $token" -d "{\"stage\":\"$2\",\"only\":${3:-false}}")
  [ "$code" = 202 ] || { echo "POST /api/check answered $code"; return 1; }
  for _ in $(seq 450); do
    sleep 2
    in_ns curl -s -b "$jar" "$url/api/check" >"$out" || continue
    grep -q '"running":false' "$out" && break
  done
  sed -nE 's/.*"exit":"?([^",}]*)"?[,}].*/\1/p' "$out"
}

# publish_in LAB FILE...: each workflow export created in LAB's n8n and published, through n8n's public API
# with the lab's key (the export's name, nodes, connections and settings: what the API takes).
publish_in() {
  local into=$1 url key id file
  url=http://127.0.0.1:$(env_of "labs/$into.env" LAB_EDITOR_PORT)/api/v1
  key=$(env_of "labs/$into.env" N8N_API_KEY)
  shift
  for file in "$@"; do
    id=$(node -e 'const w=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));
      process.stdout.write(JSON.stringify({name:w.name,nodes:w.nodes,connections:w.connections,settings:w.settings??{}}))' "$file" |
      in_ns curl -fsS -X POST "$url/workflows" -H "x-n8n-api-key: $key" -H 'content-type: application/json' --data-binary @- |
      node -e 'let t="";process.stdin.on("data",(d)=>(t+=d)).on("end",()=>process.stdout.write(String(JSON.parse(t).id??"")))')
    [ -n "$id" ] || { echo "publish_in $into: n8n did not create $file" >&2; return 1; }
    in_ns curl -fsS -o /dev/null -X POST "$url/workflows/$id/publish" -H "x-n8n-api-key: $key" \
      -H 'content-type: application/json' -d '{}' || { echo "publish_in $into: n8n did not publish $file" >&2; return 1; }
  done
}

# hook_answer PATH FILE: POST {} to the lab's published webhook PATH (EDITOR's), once it listens (a webhook
# just published answers 404 for a moment); the answer into FILE, exit 0 on a 200.
hook_answer() {
  local code
  for _ in $(seq 30); do
    code=$(in_ns curl -sS --max-time 120 -o "$2" -w '%{http_code}' -X POST "$EDITOR/webhook/$1" \
      -H 'content-type: application/json' -d '{}') || code=000
    [ "$code" = 404 ] || break
    sleep 1
  done
  [ "$code" = 200 ] || { echo "the webhook $1 answered $code: $(head -c 200 "$2")"; return 1; }
}

# workflow_removed ID: the lab's workflow ID unpublished (already, when it never was) and deleted, through
# n8n's public API with the lab's key (ENV_FILE's); n8n answers 409 while an unpublish is under way.
workflow_removed() {
  local api=$EDITOR/api/v1 key
  key=$(env_of "$ENV_FILE" N8N_API_KEY)
  in_ns curl -sS -o /dev/null --max-time 30 -X POST "$api/workflows/$1/unpublish" -H "x-n8n-api-key: $key" \
    -H 'content-type: application/json' -d '{}' || true
  for _ in $(seq 10); do
    in_ns curl -fsS -o /dev/null --max-time 30 -X DELETE "$api/workflows/$1" -H "x-n8n-api-key: $key" && return 0
    sleep 1
  done
  return 1
}
