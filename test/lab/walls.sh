# shellcheck shell=bash
# The walls, tried as a trainee would (part of test/lab/run.sh, on the running exercise lab): a workflow
# published in the lab's n8n points HTTP Request nodes and a Code node at the host's listener (started by
# this test on the engine host's 0.0.0.0) through each lab network's gateway, at the engine host's own
# address on the classroom side, and at an outside name; every one fails, while the same workflow reaches
# the mock API. Shown to reach its target with the wall removed: n8n joined to an internal network as
# Docker makes it by default (its bridge holds the host's address), where the workflow's probe of that
# network's gateway answers "host"; and n8n joined to a network that is not internal (a default route),
# where its probe of the host's classroom-side address answers "host". The outside name has no control
# here (no resolver answers in the test's namespace): make test-engine's counting resolver is its probe.
#   needs: ROOT, WORK, ENV_FILE and EDITOR (test/lab/exercise.sh), test/lib/engine.sh and test/lab/lib.sh

WALLS_HOOK=lab-walls-probe
WALLS_PORT=18998
WALLS_CONTROL_NET=soar-lab-ltest-walls-control
WALLS_ROUTED_NET=soar-lab-ltest-walls-routed
WALLS_LISTENER=""

# The targets: name=url, one a line. The gateways of the lab's four /26 (the host's address where a
# network has one), the engine host's classroom-side address, an outside name, the control network's
# gateway, and the mock API (which the workflow must reach).
walls_targets() {
  local net
  for net in 1 65 129 193; do echo "gateway .$net=http://172.30.66.$net:$WALLS_PORT/"; done
  echo "the host on the classroom side=http://10.250.1.1:$WALLS_PORT/"
  echo "an outside name=http://outside.example.org:$WALLS_PORT/"
  echo "control gateway=http://172.30.99.1:$WALLS_PORT/"
  echo "mock API=http://mock-api:8081/health"
}

# The probe workflow: Webhook -> an HTTP Request node a target (an error is its output) -> a Code node
# that tries every target with n8n's own request helper -> Report (the webhook's answer).
walls_workflow() {
  # shellcheck disable=SC2016 # JavaScript, with template literals of its own
  walls_targets | node -e '
const { randomUUID } = require("node:crypto");
const targets = require("fs").readFileSync(0, "utf8").trim().split("\n").map((l) => l.split("="));
const nodes = [], names = [];
const add = (name, type, typeVersion, parameters, extra = {}) => {
  nodes.push({ id: randomUUID(), name, type, typeVersion, position: [220 * nodes.length, 0], parameters, ...extra });
  names.push(name);
};
add("Webhook", "n8n-nodes-base.webhook", 2.1,
  { httpMethod: "POST", path: process.argv[1], responseMode: "lastNode", responseData: "firstEntryJson", options: {} },
  { webhookId: randomUUID() });
for (const [name, url] of targets)
  add("HTTP " + name, "n8n-nodes-base.httpRequest", 4.2,
    { url, options: { timeout: 3000, response: { response: { responseFormat: "text" } } } },
    { onError: "continueRegularOutput", alwaysOutputData: true });
add("Code", "n8n-nodes-base.code", 2, { mode: "runOnceForAllItems", jsCode:
  "const out = {};\nfor (const [name, url] of " + JSON.stringify(targets) + ") {\n" +
  "  try { out[name] = JSON.stringify(await this.helpers.httpRequest({ url, timeout: 3000 })).slice(0, 60); }\n" +
  "  catch (error) { out[name] = `error: ${error.message}`; }\n}\nreturn [{ json: out }];" },
  { onError: "continueRegularOutput", alwaysOutputData: true });
add("Report", "n8n-nodes-base.code", 2, { mode: "runOnceForAllItems", jsCode:
  "const report = { code: $(\"Code\").first().json };\nfor (const name of " + JSON.stringify(targets.map(([n]) => n)) + ")\n" +
  "  report[name] = JSON.stringify($(\"HTTP \" + name).first().json).slice(0, 300);\nreturn [{ json: report }];" });
const connections = {};
names.forEach((name, i) => { if (i + 1 < names.length) connections[name] = { main: [[{ node: names[i + 1], type: "main", index: 0 }]] }; });
process.stdout.write(JSON.stringify({ name: "Lab walls probe", nodes, connections, settings: { executionOrder: "v1" } }));
' "$WALLS_HOOK"
}

walls_api() { # walls_api METHOD PATH: n8n's public API with the lab's key, the body on stdin
  in_ns curl -fsS --max-time 30 -X "$1" "$EDITOR/api/v1$2" -H "x-n8n-api-key: $(env_of "$ENV_FILE" N8N_API_KEY)" \
    -H 'content-type: application/json' --data-binary @-
}

walls_publish() { echo '{}' | walls_api POST "/workflows/$1/publish" >/dev/null; }

# The webhook's answer into FILE (a published webhook answers 404 for a moment).
walls_run() { hook_answer "$WALLS_HOOK" "$1"; }

# walls_reached REPORT NAME: the HTTP Request node's and the Code node's probes of NAME both got the
# host's answer (or, for the mock API, its health).
walls_reached() { walls_probes "$1" "$2" every answered; }
# walls_blocked REPORT NAME: neither reached it, counting ANY answer as reached: a status line, a refused
# or reset connection, whatever error is not silence. Only a timeout, "no route" and "no such name" are
# not reached (n8n's words for them or the raw codes); an error in other words counts as reached.
walls_blocked() { ! walls_probes "$1" "$2" some any; }
# walls_probes REPORT NAME every|some answered|any: prints NAME's two probes; exit 0 when every (or some)
# one reached: got the target's answer (answered), or anything but silence (any).
walls_probes() {
  NAME=$2 QUANTIFIER=$3 COUNTS=$4 node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const probes = [r[process.env.NAME], r.code?.[process.env.NAME]].map(String);
console.log(probes.join(" | "));
const silence = /timed? ?out|ETIMEDOUT|ECONNABORTED|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|getaddrinfo|DNS server returned an error/i;
const answered = (v) => /host|healthy/.test(v) && !/error/i.test(v);
const reached = process.env.COUNTS === "any" ? (v) => answered(v) || !silence.test(v) : answered;
process.exit(probes[process.env.QUANTIFIER](reached) ? 0 : 1);' "$1"
}
# walls_judge NAME blocked|reached REPORT TARGET: passes or fails with the two probes' words printed.
walls_judge() {
  local said ok=0
  said=$(walls_probes "$3" "$4" some any 2>&1 | head -n 1) || true
  if [ "$2" = blocked ]; then walls_blocked "$3" "$4" >/dev/null 2>&1 || ok=1; else walls_reached "$3" "$4" >/dev/null 2>&1 || ok=1; fi
  if [ "$ok" = 0 ]; then pass "$1 ($(cut -c1-160 <<<"$said"))"; else fail "$1" "$(cut -c1-200 <<<"$said")"; fi
}

walls_listening() {
  for _ in $(seq 20); do
    in_ns curl -fsS --max-time 3 "http://10.250.1.1:$WALLS_PORT/" && return 0
    sleep 0.5
  done
  return 1
}

walls_stop() {
  [ -n "$WALLS_LISTENER" ] && kill "$WALLS_LISTENER" 2>/dev/null
  WALLS_LISTENER=""
  local net
  for net in "$WALLS_CONTROL_NET" "$WALLS_ROUTED_NET"; do
    docker network disconnect -f "$net" "$(container_of soar-lab n8n)" >/dev/null 2>&1 || true
    docker network rm "$net" >/dev/null 2>&1 || true
  done
  in_ns ip link del soar-lw0 2>/dev/null || true
}

exercise_walls() {
  log "the walls, tried by a workflow: the host through every gateway, the classroom side, an outside name"
  local id report=$WORK/walls-report.json control=$WORK/walls-control.json name n8n
  n8n=$(container_of soar-lab n8n)
  # The host's listener, on every address of the engine host, and an address of its own on the
  # classroom side (one end of a veth pair: what a LAN interface would be).
  in_ns ip link add soar-lw0 type veth peer name soar-lw1
  in_ns ip addr add 10.250.1.1/24 dev soar-lw0
  in_ns ip link set soar-lw1 up
  in_ns ip link set soar-lw0 up
  # Not through in_ns (a function: $! would be a subshell's, and node would outlive walls_stop's kill).
  local listener="require('http').createServer((q,s)=>s.end('host')).listen($WALLS_PORT,'0.0.0.0')"
  if [ -n "$ENGINE_NETNS" ]; then
    nsenter --net="/var/run/netns/$ENGINE_NETNS" node -e "$listener" &
  else
    node -e "$listener" &
  fi
  WALLS_LISTENER=$!
  check "control: the host's listener answers on the host's classroom-side address" walls_listening
  id=$(walls_workflow | walls_api POST /workflows | node -e 'let t="";process.stdin.on("data",(d)=>(t+=d)).on("end",()=>process.stdout.write(String(JSON.parse(t).id??"")))')
  check "the probe workflow is published in the lab's n8n" walls_publish "$id"
  check "the probe workflow runs by its webhook" walls_run "$report"
  walls_judge "the workflow reaches the mock API (HTTP Request and Code)" reached "$report" "mock API"
  while IFS='=' read -r name _; do
    case $name in "mock API" | "control gateway") continue ;; esac
    walls_judge "the workflow reaches nothing at $name (HTTP Request and Code: any answer counts)" blocked "$report" "$name"
  done < <(walls_targets)
  # The wall removed: n8n on an internal network as Docker makes it by default.
  docker network create --internal --subnet 172.30.99.0/24 "$WALLS_CONTROL_NET" >/dev/null
  docker network connect "$WALLS_CONTROL_NET" "$n8n"
  check "control: n8n on an internal network without inhibit_ipv4 runs the workflow again" walls_run "$control"
  walls_judge "control: ... and there the workflow reaches the host's listener at the gateway (HTTP Request and Code)" \
    reached "$control" "control gateway"
  # The wall of the classroom side (internal networks: no route out) removed: n8n on a network that is
  # not internal, whose gateway is its default route.
  docker network disconnect "$WALLS_CONTROL_NET" "$n8n"
  docker network create --subnet 172.30.98.0/24 "$WALLS_ROUTED_NET" >/dev/null
  docker network connect "$WALLS_ROUTED_NET" "$n8n"
  check "control: n8n on a network that is not internal runs the workflow again" walls_run "$control"
  walls_judge "control: ... and there the workflow reaches the host's listener on the classroom side (HTTP Request and Code)" \
    reached "$control" "the host on the classroom side"
  walls_stop
  # The trainee's editor as it was: the probe is not theirs to keep or save.
  check "the probe workflow removed" workflow_removed "$id"
}
