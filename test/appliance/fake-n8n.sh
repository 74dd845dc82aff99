#!/usr/bin/env bash
# n8n's CLI as the lab's one-off n8n container runs it, for test/appliance/fake-docker.sh: the workflows
# are the files of $N8N_DB, one <id>.json a workflow (as `n8n export:workflow --backup` names them).
set -euo pipefail
db=${N8N_DB:?N8N_DB is needed}
mkdir -p "$db"
case "$1" in
  export:workflow)
    out=${3#--output=}
    sleep "${FAKE_EXPORT_SLEEP:-0}"
    if [ "${FAKE_EXPORT_FAIL:-}" = stack ]; then
      printf '%s\n' "There was an error initializing DB" "    at Start.init (/usr/local/lib/node_modules/n8n/dist/commands/base-command.js:104:19)" \
        "Error: connect ECONNREFUSED postgres:5432"
      exit 1
    fi
    [ -z "${FAKE_EXPORT_FAIL:-}" ] || { echo "Error: connect ECONNREFUSED postgres:5432"; exit 1; }
    shopt -s nullglob
    files=("$db"/*.json)
    [ "${#files[@]}" -gt 0 ] || { echo "No workflows found with specified filter"; exit 1; }
    cp "${files[@]}" "$out"
    echo "Successfully exported ${#files[@]} workflows."
    ;;
  import:workflow)
    in=${3#--input=}
    if [ -n "${FAKE_IMPORT_FAIL:-}" ]; then
      printf '%s\n' "Importing 1 workflows..." "An error occurred while importing workflows. See log messages for details." \
        "duplicate key value violates unique constraint \"pk_workflow_entity\""
      exit 1
    fi
    cp "$in"/*.json "$db/"
    echo "Successfully imported workflows."
    ;;
  *) echo "fake n8n: $*" >&2; exit 1 ;;
esac
