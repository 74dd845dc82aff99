# shellcheck shell=bash
# No secret within a workflow's reach, on the real lab (part of test/lab/run.sh, on a running exercise lab):
# a workflow made through n8n's API and run by its webhook, as a trainee could build it, finds
#   - in $env, in an expression and in a Code node, MOCK_API_URL's value, and neither the database password
#     nor the encryption key: read whole (`JSON.stringify($env)`, which n8n 2.x answers with "{}": its $env
#     does not enumerate) and by name (every name those secrets have had or have in a container);
#   - the Read/Write Files node refused n8n's secret files and n8n's own `config` (which holds the key);
#   - with a Postgres credential of user n8n, its real password, host postgres: n8n is who it is, with no
#     superuser attribute, refused COPY ... TO PROGRAM and ALTER ROLE ... SUPERUSER (must be superuser);
#     the superuser, tried with that password, refused at login;
# a workflow with the Execute Command node is refused publishing; and no process of n8n (PID 1, n8n, its
# task runner: /proc/<pid>/environ, read with docker exec) holds a secret. Each probe is shown to reach its
# target with its guard removed: the same workflows, run by n8n's CLI in a one-off n8n of the lab with the
# old environment (both secrets in n8n's environment, by their names), no file restriction and no node
# left out, find both secrets in $env, read the three files and run `id`; a process given the container's
# environment (docker exec) holds them; the superuser, over the socket in the Postgres container, runs the
# COPY and the ALTER ROLE (rolled back). The secrets are read from the lab's settings file and only ever
# compared in this shell: never on a command line, never printed. The probes' workflows and credentials
# are removed at the end.
#   needs: ROOT, WORK, ENV_FILE and EDITOR (test/lab/exercise.sh), test/lib/engine.sh and test/lab/lib.sh
#   sourced; the look-alike images' or the official ones. Every wait is bounded.

SECRETS_PROJECT=soar-lab
SECRETS_HOOK=lab-secrets-probe

# The probe workflow, printed: node -e "$SECRETS_WORKFLOW_JS" N8N_CREDENTIAL SUPERUSER_CREDENTIAL HOOK [command].
# A chain from a Webhook (and from a Manual Trigger, for n8n's CLI) where every probe goes on after an error
# (its message is its output), and a Report of every probe's items, the webhook's answer; with `command`,
# the Execute Command node's workflow instead.
# shellcheck disable=SC2016 # JavaScript, and n8n's expression syntax
SECRETS_WORKFLOW_JS='const [n8nCredential, superCredential, hook, only] = process.argv.slice(1);
const { randomUUID } = require("node:crypto");
const nodes = [], names = [];
const onError = { onError: "continueRegularOutput", alwaysOutputData: true };
const add = (name, type, typeVersion, parameters, extra = {}) => {
  nodes.push({ id: randomUUID(), name, type, typeVersion, position: [220 * nodes.length, 0], parameters, ...extra });
  names.push(name);
};
add("Webhook", "n8n-nodes-base.webhook", 2.1,
  { httpMethod: "POST", path: hook, responseMode: "lastNode", responseData: "firstEntryJson", options: {} },
  { webhookId: randomUUID() });
// The other probe, a workflow of its own (n8n refuses to publish a workflow with a node it has not loaded):
// the Execute Command node, `id` in the container of n8n.
if (only === "command") add("Execute Command", "n8n-nodes-base.executeCommand", 1, { command: "id" }, onError);
else {
// $env does not enumerate in n8n 2.x (a proxy: JSON.stringify($env) is "{}"), so the probes read it by
// name as well: every name a secret of the lab has had or has in a container, and the one the workflow needs.
const envNames = ["DB_POSTGRESDB_PASSWORD", "N8N_ENCRYPTION_KEY", "LAB_SECRET_DB_POSTGRESDB_PASSWORD",
  "LAB_SECRET_N8N_ENCRYPTION_KEY", "POSTGRES_PASSWORD", "N8N_DB_PASSWORD", "MOCK_API_URL"];
add("Env expression", "n8n-nodes-base.set", 3.4, { mode: "manual", assignments: { assignments: [
  { id: randomUUID(), name: "enumerated", value: "={{ JSON.stringify($env) }}", type: "string" },
  { id: randomUUID(), name: "by_name", type: "string",
    value: "={{ JSON.stringify({ " + envNames.map((n) => n + ": $env." + n).join(", ") + " }) }}" }] }, options: {} }, onError);
add("Env code", "n8n-nodes-base.code", 2, { mode: "runOnceForAllItems", jsCode:
  "const names = " + JSON.stringify(envNames) + ";\n" +
  "return [{ json: { enumerated: JSON.stringify($env), by_name: JSON.stringify(Object.fromEntries(names.map((n) => [n, $env[n]]))) } }];" },
  onError);
for (const [what, path] of [["DB password file", "/run/n8n-secrets/db-password"],
  ["encryption key file", "/run/n8n-secrets/encryption-key"], ["n8n config", "/home/node/.n8n/config"]]) {
  add("Read " + what, "n8n-nodes-base.readWriteFile", 1.1, { operation: "read", fileSelector: path, options: {} }, onError);
  add("Text of " + what, "n8n-nodes-base.extractFromFile", 1.1,
    { operation: "text", binaryPropertyName: "data", options: {} }, onError);
}
const postgres = (name, query, credential) => add(name, "n8n-nodes-base.postgres", 2.6,
  { operation: "executeQuery", query, options: {} },
  { ...onError, credentials: { postgres: { id: credential, name: credential === n8nCredential ? "Lab secrets probe: n8n" : "Lab secrets probe: superuser" } } });
postgres("Postgres who", "SELECT current_user AS who, (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS rolsuper, (SELECT rolsuper FROM pg_roles WHERE rolname = '\''postgres'\'') AS postgres_rolsuper", n8nCredential);
postgres("Postgres COPY TO PROGRAM", "COPY (SELECT 1) TO PROGRAM '\''id'\''", n8nCredential);
postgres("Postgres ALTER ROLE", "ALTER ROLE n8n SUPERUSER", n8nCredential);
postgres("Postgres rolsuper", "SELECT rolsuper FROM pg_roles WHERE rolname = '\''n8n'\''", n8nCredential);
postgres("Postgres as superuser", "SELECT current_user AS who", superCredential);
const probes = names.slice(1);
add("Report", "n8n-nodes-base.code", 2, { mode: "runOnceForAllItems", jsCode:
  "const report = {};\nfor (const name of " + JSON.stringify(probes) + ") {\n" +
  "  try { report[name] = $(name).all().map((item) => item.json); }\n" +
  "  catch (error) { report[name] = [{ error: `not run: ${error.message}` }]; }\n}\nreturn [{ json: report }];" });
}
nodes.push({ id: randomUUID(), name: "Manual", type: "n8n-nodes-base.manualTrigger", typeVersion: 1, position: [0, 200], parameters: {} });
const connections = {};
names.forEach((name, i) => { if (i + 1 < names.length) connections[name] = { main: [[{ node: names[i + 1], type: "main", index: 0 }]] }; });
connections.Manual = { main: [[{ node: names[1], type: "main", index: 0 }]] };
process.stdout.write(JSON.stringify({ name: only === "command" ? "Lab secrets probe: Execute Command" : "Lab secrets probe",
  nodes, connections, settings: { executionOrder: "v1" } }));'

# secrets_api METHOD PATH [-]: n8n's public API with the lab's key; with -, the request's body on stdin,
# never on a command line (a credential holds the password); the answer's body out.
secrets_api() {
  local body=()
  [ "${3:-}" != - ] || body=(-H 'content-type: application/json' --data-binary @-)
  in_ns curl -fsS --max-time 30 -X "$1" "$EDITOR/api/v1$2" -H "x-n8n-api-key: $(env_of "$ENV_FILE" N8N_API_KEY)" "${body[@]}"
}
# The id in an answer of n8n's API (stdin): the public API's `id`, the editor's `data.id`.
secrets_id() {
  node -e 'let t="";process.stdin.on("data",(d)=>(t+=d)).on("end",()=>{const r=JSON.parse(t);
    process.stdout.write(String(r.id??r.data?.id??""))})'
}

# Credentials are the editor's (the lab's API key has no credential scope): the trainee's own session, as
# n8n's owner, signed in with the lab's login (on stdin), its cookie in $WORK/secrets-jar.
secrets_login() {
  printf '{"emailOrLdapLoginId":"%s","password":"%s"}' "$(env_of "$ENV_FILE" N8N_OWNER_EMAIL)" \
    "$(env_of "$ENV_FILE" N8N_OWNER_PASSWORD)" |
    in_ns curl -fsS --max-time 30 -o /dev/null -c "$WORK/secrets-jar" -X POST "$EDITOR/rest/login" \
      -H 'content-type: application/json' --data-binary @-
}
# secrets_rest METHOD PATH [-]: n8n's editor API in that session, as secrets_api.
secrets_rest() {
  local body=()
  [ "${3:-}" != - ] || body=(-H 'content-type: application/json' --data-binary @-)
  in_ns curl -fsS --max-time 30 -b "$WORK/secrets-jar" -X "$1" "$EDITOR/rest$2" "${body[@]}"
}

# secrets_credential NAME USER: a Postgres credential for host postgres, database n8n, USER with n8n's real
# password; its id out. The body is made in this shell and goes to curl on stdin.
secrets_credential() {
  printf '{"name":"%s","type":"postgres","data":{"host":"postgres","port":5432,"database":"n8n","user":"%s","password":"%s","ssl":"disable","allowUnauthorizedCerts":false,"sshTunnel":false}}' \
    "$1" "$2" "$SECRET_DB" | secrets_rest POST /credentials - | secrets_id
}

# The names of the lab's secrets a file holds ("DB password", "encryption key", both, or nothing).
secrets_in() {
  local text found=""
  text=$(cat "$1")
  [[ $text != *"$SECRET_DB"* ]] || found="DB password"
  [[ $text != *"$SECRET_KEY"* ]] || found="${found:+$found and }encryption key"
  echo "$found"
}
holds_no_secret() {
  local found
  found=$(secrets_in "$1")
  [ -z "$found" ] || { echo "holds the $found"; return 1; }
}
holds_both_secrets() {
  local found
  found=$(secrets_in "$1")
  [ "$found" = "DB password and encryption key" ] || { echo "holds ${found:-neither}"; return 1; }
}
holds_secret() { [ -n "$(secrets_in "$1")" ] || { echo "holds neither"; return 1; }; }

# probe_out REPORT PROBE: one probe's items from a report, as JSON, into $WORK/probe.json (its path out).
probe_out() {
  PROBE=$2 node -e 'const r=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));
    process.stdout.write(JSON.stringify(r[process.env.PROBE] ?? null))' "$1" >"$WORK/probe.json"
  echo "$WORK/probe.json"
}
# probe_holds REPORT PROBE TEXT: the probe's items hold TEXT (a name, a message: no secret).
probe_holds() {
  local out
  out=$(cat "$(probe_out "$1" "$2")")
  grep -qF -- "$3" <<<"$out" || { echo "${out:0:160}"; return 1; }
}
probe_has_no_secret() { holds_no_secret "$(probe_out "$1" "$2")"; }
probe_has_secret() { holds_secret "$(probe_out "$1" "$2")"; }
probe_has_both() { holds_both_secrets "$(probe_out "$1" "$2")"; }

# The probe workflow's webhook, once it listens (a published webhook answers 404 for a moment): the report
# into FILE.
secrets_run_hook() { hook_answer "$SECRETS_HOOK" "$1"; }

# The control: the same workflows by n8n's CLI (`n8n execute`, from their Manual Trigger) in a one-off
# container of the lab's n8n service with its guards removed: both secrets in n8n's environment by their own
# names (read back from the files the lab's entrypoint wrote, so never on a command line), no file
# restriction and no node left out. The probe's report into FILE, the Execute Command node's items into
# FILE.command.
# shellcheck disable=SC2016 # expanded by the one-off container's shell
SECRETS_OLD_ENV='DB_POSTGRESDB_PASSWORD=$(cat "$DB_POSTGRESDB_PASSWORD_FILE")
N8N_ENCRYPTION_KEY=$(cat "$N8N_ENCRYPTION_KEY_FILE")
export DB_POSTGRESDB_PASSWORD N8N_ENCRYPTION_KEY
n8n execute --id "$1" --rawOutput
echo "== the next execution"
n8n execute --id "$2" --rawOutput'
# From the one-off's output (each run's data from its line "{" on; n8n's log lines come before it): node -e
# SECRETS_RUN_JS RUN NODE [first]: that node's items in run RUN (0, 1), or its first item.
# shellcheck disable=SC2016 # JavaScript
SECRETS_RUN_JS='const [run, node, first] = process.argv.slice(1);
let t = ""; process.stdin.on("data", (d) => (t += d)).on("end", () => {
  const part = t.split("\n== the next execution\n")[Number(run)];
  const items = JSON.parse(part.slice(part.search(/^\{$/m))).data.resultData.runData[node][0].data.main[0].map((i) => i.json);
  process.stdout.write(JSON.stringify(first ? items[0] : items));
});'
secrets_control_run() { # secrets_control_run PROBE_ID COMMAND_ID FILE
  local out=$WORK/secrets-control.out rc=0
  # Its exit status is not the runs': n8n's CLI may die of a segmentation fault on its way out (seen with
  # 2.41.1, after it printed the run's data). The runs' data, parsed, is the proof.
  timeout 300 docker compose -p "$SECRETS_PROJECT" --project-directory "$ROOT" -f "$ROOT/compose.yaml" --env-file "$ENV_FILE" \
    run --rm -T --no-deps --entrypoint /bin/sh -e N8N_RESTRICT_FILE_ACCESS_TO= -e N8N_BLOCK_FILE_ACCESS_TO_N8N_FILES=false \
    -e NODES_EXCLUDE='[]' n8n /lab/secrets-entrypoint.sh /bin/sh -c "$SECRETS_OLD_ENV" old-environment "$1" "$2" \
    >"$out" 2>"$out.err" || rc=$?
  if ! node -e "$SECRETS_RUN_JS" 0 Report first <"$out" >"$3" 2>/dev/null ||
    ! node -e "$SECRETS_RUN_JS" 1 'Execute Command' <"$out" >"$3.command" 2>/dev/null; then
    echo "no run's data from the one-off n8n (exit $rc): $(tail -n 2 "$out.err" "$out" | tr '\n' ' ' | cut -c1-200)"
    return 1
  fi
  echo "exit $rc"
}

# In n8n's container, every process's pid, command line and environment (one NAME=VALUE a line), read by a
# shell that is given none of the container's LAB_SECRET_* itself (`docker exec` gives them: see compose.yaml).
# shellcheck disable=SC2016 # the container's shell expands it
SECRETS_PROCS='for d in /proc/[0-9]*; do
  [ -r "$d/environ" ] || continue
  p=${d#/proc/}
  [ "$p" != "$$" ] || continue
  echo "== $p $(tr "\0" " " <"$d/cmdline" 2>/dev/null | cut -c1-300)"
  tr "\0" "\n" <"$d/environ" 2>/dev/null
  echo
done'
n8n_processes() {
  timeout 30 docker exec "$1" env -u LAB_SECRET_DB_POSTGRESDB_PASSWORD -u LAB_SECRET_N8N_ENCRYPTION_KEY \
    sh -c "$SECRETS_PROCS" >"$WORK/n8n-procs"
}
# Each process that holds a secret in its environment, by pid and command; the processes read must include
# PID 1, n8n and its task runner.
N8N_MAIN='^== [0-9]+ node [^ ]*/n8n( |$)'
N8N_RUNNER='^== [0-9]+ node .*task-runner'
no_process_holds_a_secret() {
  local line pid="" cmd="" bad="" seen=""
  while IFS= read -r line; do
    if [[ $line == '== '* ]]; then
      read -r _ pid cmd <<<"$line"
      seen="$seen $pid"
    elif [[ $line == *"$SECRET_DB"* || $line == *"$SECRET_KEY"* ]]; then
      bad="$bad pid $pid (${cmd:0:60}) ${line%%=*};"
    fi
  done <"$WORK/n8n-procs"
  grep -q '^== 1 ' "$WORK/n8n-procs" || bad="$bad PID 1 not read;"
  grep -Eq "$N8N_MAIN" "$WORK/n8n-procs" || bad="$bad no n8n process read;"
  grep -Eq "$N8N_RUNNER" "$WORK/n8n-procs" || bad="$bad no task runner read;"
  [ -z "$bad" ] || { echo "$bad"; return 1; }
  echo "pids read:$seen"
}
# The environment's names (no value) of n8n's main process, on one line.
n8n_env_names() {
  awk -v main="$N8N_MAIN" '$0 ~ main {on = 1; next} /^== / {on = 0} on && /=/ {sub(/=.*/, ""); print}' \
    "$WORK/n8n-procs" | LC_ALL=C sort | paste -sd ' '
}

# publish_probe WORKFLOW, and remove_probe WORKFLOW WORKFLOW CREDENTIAL...: through n8n's API (the
# editor's for credentials); an empty id is one never made.
publish_probe() {
  [ -n "$1" ] || { echo "no workflow"; return 1; }
  # Without -f: n8n's refusal is the output.
  in_ns curl -sS --max-time 30 -o "$WORK/publish.out" -w '%{http_code}' -X POST "$EDITOR/api/v1/workflows/$1/publish" \
    -H "x-n8n-api-key: $(env_of "$ENV_FILE" N8N_API_KEY)" -H 'content-type: application/json' -d '{}' >"$WORK/publish.code"
  [ "$(cat "$WORK/publish.code")" = 200 ] || { cat "$WORK/publish.out"; return 1; }
}
remove_probe() {
  local id bad=""
  for id in "$1" "$2"; do
    [ -n "$id" ] || continue
    workflow_removed "$id" 2>/dev/null || bad="$bad workflow $id;"
  done
  shift 2
  for id in "$@"; do
    [ -z "$id" ] || secrets_rest DELETE "/credentials/$id" >/dev/null || bad="$bad credential $id;"
  done
  [ -z "$bad" ] || { echo "not removed:$bad"; return 1; }
}
# psql as the superuser over the Postgres container's socket: psql_super CONTAINER SQL.
psql_super() { timeout 20 docker exec "$1" psql -U postgres -d n8n -v ON_ERROR_STOP=1 -Atc "$2"; }

exercise_secrets() {
  log "no secret within a workflow's reach: \$env, files, processes, Postgres"
  local n8n pg cred_n8n cred_super wf wf_command names probe out rc report=$WORK/secrets-lab.json control=$WORK/secrets-control.json
  SECRET_DB=$(env_of "$ENV_FILE" POSTGRES_PASSWORD)
  SECRET_KEY=$(env_of "$ENV_FILE" N8N_ENCRYPTION_KEY)
  check "the lab's settings file has both secrets (${#SECRET_DB} and ${#SECRET_KEY} characters)" \
    test "${#SECRET_DB}" -ge 16 -a "${#SECRET_KEY}" -ge 16
  n8n=$(container_of "$SECRETS_PROJECT" n8n)
  pg=$(container_of "$SECRETS_PROJECT" postgres)

  check "the trainee signs in to n8n's editor API with the lab's login" secrets_login
  cred_n8n=$(secrets_credential 'Lab secrets probe: n8n' n8n || true)
  cred_super=$(secrets_credential 'Lab secrets probe: superuser' postgres || true)
  check "two Postgres credentials made through n8n's editor API (users n8n and postgres; host postgres, n8n's password)" \
    test -n "$cred_n8n" -a -n "$cred_super"
  wf=$(node -e "$SECRETS_WORKFLOW_JS" "$cred_n8n" "$cred_super" "$SECRETS_HOOK" | secrets_api POST /workflows - | secrets_id || true)
  check "the probe workflow made and published through n8n's API" publish_probe "$wf"
  check "the probe workflow runs by its webhook, in the lab's n8n" secrets_run_hook "$report"
  wf_command=$(node -e "$SECRETS_WORKFLOW_JS" '' '' "$SECRETS_HOOK-command" command | secrets_api POST /workflows - |
    secrets_id || true)
  out=$(publish_probe "$wf_command" 2>&1) && rc=0 || rc=$?
  check "a workflow with the Execute Command node: made, but n8n refuses to publish it (${out:0:90})" \
    test -n "$wf_command" -a "$rc" != 0 -a -n "$(grep -o 'Unrecognized node type: n8n-nodes-base.executeCommand' <<<"$out")"

  for probe in 'Env expression' 'Env code'; do
    check "$probe: \$env holds MOCK_API_URL's value" probe_holds "$report" "$probe" 'http://mock-api:8081'
    check "... and neither secret" probe_has_no_secret "$report" "$probe"
  done
  for probe in 'DB password file' 'encryption key file' 'n8n config'; do
    check "Read/Write Files refuses the $probe (Access to the file is not allowed)" \
      probe_holds "$report" "Read $probe" 'Access to the file is not allowed'
  done
  check "no secret anywhere in the probe's report" holds_no_secret "$report"
  check "Postgres as n8n with its password: connected, n8n, no superuser (the superuser is postgres)" \
    probe_holds "$report" 'Postgres who' '"who":"n8n","rolsuper":false,"postgres_rolsuper":true'
  check "... COPY (SELECT 1) TO PROGRAM 'id' refused: must be superuser" \
    probe_holds "$report" 'Postgres COPY TO PROGRAM' 'must be superuser'
  check "... ALTER ROLE n8n SUPERUSER refused: must be superuser" probe_holds "$report" 'Postgres ALTER ROLE' 'must be superuser'
  check "... SELECT rolsuper FROM pg_roles WHERE rolname='n8n': false" probe_holds "$report" 'Postgres rolsuper' '"rolsuper":false'
  check "the superuser (postgres) with n8n's password: refused at login" \
    probe_holds "$report" 'Postgres as superuser' 'password authentication failed'

  # After the run, so that n8n's task runner (the Code node's) is up.
  check "n8n's processes read with docker exec (PID 1, n8n, its task runner)" n8n_processes "$n8n"
  check "... none holds a secret in its environment" no_process_holds_a_secret
  names=$(n8n_env_names)
  check "n8n's environment holds MOCK_API_URL and no LAB_SECRET_* (its names: $names)" \
    test -n "$(grep -ow MOCK_API_URL <<<"$names")" -a -z "$(grep -o 'LAB_SECRET_[A-Z_]*' <<<"$names")"
  timeout 20 docker exec "$n8n" cat /proc/self/environ >"$WORK/exec-environ" 2>&1 || true
  check "control: a process given the container's environment (docker exec) holds both" holds_both_secrets "$WORK/exec-environ"

  # The controls: each probe reaches its target with its guard removed.
  check "control: the same workflows by n8n's CLI, old environment, no file restriction, no node left out (a one-off n8n)" \
    secrets_control_run "$wf" "$wf_command" "$control"
  for probe in 'Env expression' 'Env code'; do
    check "control: $probe: \$env holds both secrets" probe_has_both "$control" "$probe"
  done
  check "control: Read/Write Files reads the DB password file" probe_has_secret "$control" 'Text of DB password file'
  check "control: ... the encryption key file" probe_has_secret "$control" 'Text of encryption key file'
  check "control: ... n8n's config, which holds the key" probe_has_secret "$control" 'Text of n8n config'
  check "control: the Execute Command node runs id in n8n's container" grep -q '"stdout":"uid=1000' "$control.command"
  check "control: the superuser runs the COPY (psql over the Postgres container's socket)" \
    psql_super "$pg" "COPY (SELECT 1) TO PROGRAM 'id'"
  check "control: ... and ALTER ROLE n8n SUPERUSER (rolled back)" psql_super "$pg" 'BEGIN; ALTER ROLE n8n SUPERUSER; ROLLBACK;'
  check "... after which n8n is still no superuser" \
    test "$(psql_super "$pg" "SELECT rolsuper FROM pg_roles WHERE rolname = 'n8n'")" = f

  # The lab as it was: no probe workflow, no probe credential.
  check "the probe workflows and their credentials removed" remove_probe "$wf" "$wf_command" "$cred_n8n" "$cred_super"
  unset SECRET_DB SECRET_KEY
}
