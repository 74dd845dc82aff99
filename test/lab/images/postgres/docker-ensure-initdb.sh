#!/usr/bin/env bash
# TEST INFRASTRUCTURE ONLY (test/lab/images): as docker-library/postgres's docker-ensure-initdb.sh
# behaves: initialise PGDATA when it is empty and exit without starting the server. Called by its
# other name, docker-enforce-initdb.sh, it fails when PGDATA already holds a database.
set -Eeo pipefail
# shellcheck source=docker-entrypoint.sh
source "$(command -v docker-entrypoint.sh)"

[ "${1:0:1}" != - ] || set -- postgres "$@"
[ $# -gt 0 ] || set -- postgres
pg_read_settings
pg_prepare_directories
if [ "$(id -u)" = 0 ]; then exec gosu postgres "${BASH_SOURCE[0]}" "$@"; fi
if [ -z "$DATABASE_ALREADY_EXISTS" ]; then
  pg_initialise "$@"
elif [ "$(basename "$0")" = docker-enforce-initdb.sh ]; then
  echo "$0: error: the database is already initialised in $PGDATA" >&2
  exit 1
else
  echo "$0: the database is already initialised in $PGDATA"
fi
