#!/usr/bin/env bash
# A stand-in for `docker` (and, through it, n8n's CLI) for the lab scripts' unit tests
# (test/appliance/fake-lab.ts): the engine's answers the lab's commands read, with its state in files.
#   $FAKE_STATE/calls.log        every call, its arguments one line
#   $FAKE_STATE/running          present: the lab's containers run
#   $FAKE_STATE/volumes/<name>/  the volumes (<project>_postgres-data: the lab has data; <project>_lab-reports:
#                                its reports, as the console and the checker write them)
#   $FAKE_STATE/n8n/<id>.json    n8n's workflows, as its CLI exports and imports them (its credentials in
#                                n8n/credentials/<id>.json); held by the lab's database: `compose down` empties it
#   $FAKE_STATE/group            the process group of the lab command under test (FAKE_KILL_AT)
# A one-off n8n container runs its script here, with the real sh, tar and node and bin/n8n below; a
# one-off container of the lab's image that reads the reports volume runs its node script on the folder.
# Knobs: FAKE_EXPORT_FAIL=1 (the export fails; =stack: with a stack trace before its last line),
# FAKE_EXPORT_SLEEP=SECONDS (a slow export), FAKE_IMPORT_FAIL=1 (n8n's import fails, a log of several
# lines), FAKE_TOOL_FAIL=COMMAND (the n8n client's COMMAND fails, several lines on stderr),
# FAKE_REPORT_FAIL=1 (reading the reports volume fails, several lines), FAKE_COMPOSE_FAIL=COMMAND
# (`docker compose COMMAND` fails, several lines), FAKE_KILL_AT=POINT (the lab command is killed there, as
# Ctrl-C or a power cut would stop it: down, before `compose down` removes anything; removed, once it
# has; import, in n8n's import of workflows, one imported).
set -euo pipefail

state=${FAKE_STATE:?FAKE_STATE is needed}
printf '%s\n' "$*" >>"$state/calls.log"
project=""

# kill_at POINT: the whole lab command (its process group, which the test started) killed, at POINT only.
kill_at() {
  [ "${FAKE_KILL_AT:-}" = "$1" ] || return 0
  [ -s "$state/group" ] || { echo "fake docker: FAKE_KILL_AT without $state/group" >&2; exit 1; }
  kill -KILL -- "-$(cat "$state/group")"
  sleep 5
}

running_id() { [ ! -e "$state/running" ] || echo 0123456789ab; }

# A failing tool's output, as long as real ones are: what went wrong first, where, then a last line.
several_lines() {
  printf '%s\n' "Error: $1 failed: the first line says why" "    at step (/app/dist/one.js:1:10)" \
    "    at run (/app/dist/two.js:2:20)" "$1: exit 1, the last line"
}

# `compose run ... SERVICE ARGS`: the options before the service, then what runs.
compose_run() {
  local envs=() service
  while [ $# -gt 0 ]; do
    case "$1" in
      -e) envs+=("$2"); shift 2 ;;
      -v | --entrypoint) shift 2 ;;
      -*) shift ;;
      *) break ;;
    esac
  done
  service=$1
  shift
  case "$service" in
    n8n) [ "${1:-}" != /lab/secrets-entrypoint.sh ] || shift 2; env "${envs[@]}" FAKE_DOCKER="$0" PATH="$state/bin:$PATH" N8N_DB="$state/n8n" sh "$@" ;;
    tools) tools "$@" ;;
    *) echo "fake docker: no service $service" >&2; return 1 ;;
  esac
}

# The lab's tools: the n8n client's commands answer; the checker writes a report and a history line into
# the reports volume as the real one does (check-last.json whole, the line appended).
tools() {
  local reports=$state/volumes/${project}_lab-reports stage="" at
  case "$2" in
    dist/app/check/cli.js)
      while [ $# -gt 0 ]; do [ "$1" != --stage ] || stage=$2; shift; done
      at=${FAKE_CHECK_AT:-$(date -u +%Y-%m-%dT%H:%M:%S.000Z)}
      mkdir -p "$reports"
      echo "{\"kind\":\"stage-check\",\"requested\":\"$stage\",\"finished_at\":\"$at\"}" >"$reports/check-last.json"
      echo "{\"at\":\"$at\",\"requested\":\"$stage\",\"passed\":true,\"stages\":{},\"first_failed\":null,\"first_hint\":null,\"stopped\":false}" >>"$reports/check-history.jsonl"
      echo "PASS stage $stage"
      ;;
    dist/app/n8n/cli.js)
      [ "${FAKE_TOOL_FAIL:-}" != "$3" ] || { several_lines "the n8n client's $3" >&2; return 1; }
      echo "$3 ${*:4}"
      ;;
    *) echo "fake docker: tools $*" ;;
  esac
}

# `docker run ... --mount type=volume,source=V,target=/reports,readonly IMAGE node -e JS /reports/FILE`.
one_off() {
  local volume="" arg
  while [ $# -gt 0 ]; do
    case "$1" in
      --mount)
        arg=$2
        arg=${arg#*source=}
        volume=${arg%%,*}
        shift 2
        ;;
      --network | --user | --security-opt | --cap-drop | --name) shift 2 ;;
      -*) shift ;;
      *) break ;;
    esac
  done
  shift # the image
  [ -z "${FAKE_REPORT_FAIL:-}" ] || { several_lines "reading the reports volume" >&2; return 1; }
  [ -d "$state/volumes/$volume" ] || { echo "fake docker: no volume $volume" >&2; return 125; }
  [ "$1" = node ] || { echo "fake docker: run $*" >&2; return 125; }
  node "$2" "$3" "$state/volumes/$volume/${4#/reports/}"
}

compose() {
  while [ $# -gt 0 ]; do
    case "$1" in
      -p) project=$2; shift 2 ;;
      --project-directory | -f | --env-file) shift 2 ;;
      *) break ;;
    esac
  done
  [ "${FAKE_COMPOSE_FAIL:-}" != "$1" ] || { several_lines "compose $1" >&2; return 1; }
  case "$1" in
    version) echo 2.26.1 ;;
    ps)
      case "$*" in
        *'{{.Service}}'*) [ -z "$(running_id)" ] || tr ' ' '\n' <<<"${FAKE_SERVICES:-console mock-api n8n postgres walls}" ;;
        *) running_id ;;
      esac
      ;;
    run) shift; compose_run "$@" ;;
    cp)
      [ -f "$state/volumes/${project}_lab-reports/${2#console:/reports/}" ] || { echo "no such file" >&2; return 1; }
      cp "$state/volumes/${project}_lab-reports/${2#console:/reports/}" "$3"
      ;;
    down)
      kill_at down
      rm -rf "$state/running" "$state/volumes/${project}_"* "$state/n8n"
      mkdir "$state/n8n"
      kill_at removed
      ;;
    # `up` makes the lab's volumes (as compose does for a new lab) and runs it.
    up) mkdir -p "$state/volumes/${project}_lab-reports" "$state/volumes/${project}_postgres-data" && touch "$state/running" ;;
    *) return 0 ;;
  esac
}

case "$1" in
  info)
    case "$*" in
      *ServerVersion*) echo 26.1.5 ;;
      *MemTotal*) echo 17179869184 ;;
    esac
    ;;
  compose) shift; compose "$@" ;;
  volume) [ "$2" = inspect ] && [ -d "$state/volumes/$3" ] ;;
  run) shift; one_off "$@" ;;
  ps) running_id ;;
  container) exit 1 ;;
  kill-at) kill_at "$2" ;;
  *) exit 0 ;;
esac
