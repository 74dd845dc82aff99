#!/usr/bin/env bash
# n8n's CLI as the lab's one-off n8n container runs it, for test/appliance/fake-docker.sh: the workflows
# are the files of $N8N_DB, one <id>.json a workflow (as `n8n export:workflow --backup` names them), the
# credentials those of $N8N_DB/credentials (as `n8n export:credentials --backup` names them).
set -euo pipefail
db=${N8N_DB:?N8N_DB is needed}
mkdir -p "$db/credentials"
case "$1" in
  export:workflow | export:credentials)
    out=${3#--output=}
    from=$db what=workflows
    [ "$1" = export:workflow ] || from=$db/credentials what=credentials
    sleep "${FAKE_EXPORT_SLEEP:-0}"
    if [ "${FAKE_EXPORT_FAIL:-}" = stack ]; then
      printf '%s\n' "There was an error initializing DB" "    at Start.init (/usr/local/lib/node_modules/n8n/dist/commands/base-command.js:104:19)" \
        "Error: connect ECONNREFUSED postgres:5432"
      exit 1
    fi
    [ -z "${FAKE_EXPORT_FAIL:-}" ] || { echo "Error: connect ECONNREFUSED postgres:5432"; exit 1; }
    shopt -s nullglob
    files=("$from"/*.json)
    [ "${#files[@]}" -gt 0 ] || { echo "No $what found with specified filter"; exit 1; }
    cp "${files[@]}" "$out"
    echo "Successfully exported ${#files[@]} $what."
    ;;
  import:workflow | import:credentials)
    in=${3#--input=}
    to=$db
    [ "$1" = import:workflow ] || to=$db/credentials
    if [ -n "${FAKE_IMPORT_FAIL:-}" ]; then
      printf '%s\n' "Importing 1 workflows..." "An error occurred while importing workflows. See log messages for details." \
        "duplicate key value violates unique constraint \"pk_workflow_entity\""
      exit 1
    fi
    first=true
    for f in "$in"/*.json; do
      cp "$f" "$to/"
      # Killed part-way: one imported, the rest not.
      [ "$first" != true ] || [ "$1" != import:workflow ] || "${FAKE_DOCKER:-docker}" kill-at import
      first=false
    done
    echo "Successfully imported."
    ;;
  *) echo "fake n8n: $*" >&2; exit 1 ;;
esac
