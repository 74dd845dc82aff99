#!/usr/bin/env bash
# TEST INFRASTRUCTURE ONLY (test/lab/images): the entrypoint of the look-alike of postgres:16.4-alpine that
# the lab test builds because no registry can be reached. Trainers run the official image.
#
# Behaves as docker-library/postgres's docker-entrypoint.sh does (written here from its documented
# behaviour, not copied): POSTGRES_PASSWORD/USER/DB/INITDB_ARGS/INITDB_WALDIR/HOST_AUTH_METHOD and their
# *_FILE forms; when PGDATA holds no PG_VERSION: initdb as POSTGRES_USER with the password, a
# `host all all all <password_encryption>` line in pg_hba.conf, a socket-only temporary server that
# creates POSTGRES_DB and runs /docker-entrypoint-initdb.d/*, then the real server. Started as root it
# prepares the directories and steps down to `postgres` with gosu; started as any other user (compose's
# `user: 70:70`) it runs as that user. Can be sourced (docker-ensure-initdb.sh does).
set -Eeo pipefail

# VAR or VAR_FILE (exclusive) into VAR; $2 is the default.
pg_env_from_file() {
  local name=$1 default=${2:-} file_name="${1}_FILE" value
  if [ -n "${!name:-}" ] && [ -n "${!file_name:-}" ]; then
    echo "error: $name and $file_name are both set; use one" >&2
    exit 1
  fi
  value=$default
  if [ -n "${!name:-}" ]; then
    value=${!name}
  elif [ -n "${!file_name:-}" ]; then
    value=$(<"${!file_name}")
  fi
  export "$name=$value"
  unset "$file_name"
}

pg_read_settings() {
  pg_env_from_file POSTGRES_PASSWORD
  pg_env_from_file POSTGRES_USER postgres
  pg_env_from_file POSTGRES_DB "$POSTGRES_USER"
  pg_env_from_file POSTGRES_INITDB_ARGS
  : "${POSTGRES_HOST_AUTH_METHOD:=}"
  DATABASE_ALREADY_EXISTS=${DATABASE_ALREADY_EXISTS:-}
  if [ -s "$PGDATA/PG_VERSION" ]; then DATABASE_ALREADY_EXISTS=true; fi
}

# The data, socket and WAL directories; their owner fixed only when running as root. chmod failures are
# ignored as upstream does (a root-owned tmpfs at /var/run/postgresql cannot be changed by uid 70).
pg_prepare_directories() {
  mkdir -p "$PGDATA"
  chmod 700 "$PGDATA" || :
  mkdir -p /var/run/postgresql || :
  chmod 3775 /var/run/postgresql || :
  if [ -n "${POSTGRES_INITDB_WALDIR:-}" ]; then
    mkdir -p "$POSTGRES_INITDB_WALDIR"
    [ "$(id -u)" != 0 ] || find "$POSTGRES_INITDB_WALDIR" \! -user postgres -exec chown postgres '{}' +
    chmod 700 "$POSTGRES_INITDB_WALDIR"
  fi
  if [ "$(id -u)" = 0 ]; then
    find "$PGDATA" \! -user postgres -exec chown postgres '{}' +
    find /var/run/postgresql \! -user postgres -exec chown postgres '{}' +
  fi
}

pg_check_settings() {
  if [ -z "$POSTGRES_PASSWORD" ] && [ "$POSTGRES_HOST_AUTH_METHOD" != trust ]; then
    echo "Error: the database is not initialised and POSTGRES_PASSWORD is empty." >&2
    echo "       Set POSTGRES_PASSWORD (or POSTGRES_HOST_AUTH_METHOD=trust, not recommended)." >&2
    exit 1
  fi
  if [ "$POSTGRES_HOST_AUTH_METHOD" = trust ]; then
    echo "WARNING: POSTGRES_HOST_AUTH_METHOD=trust lets every connection in without a password." >&2
  fi
}

pg_initdb() {
  # initdb needs the running uid in /etc/passwd; with an unknown uid use nss_wrapper when present.
  local uid gid lib
  uid=$(id -u)
  gid=$(id -g)
  if ! getent passwd "$uid" >/dev/null 2>&1; then
    for lib in /usr/lib/*/libnss_wrapper.so /usr/lib/libnss_wrapper.so /lib/*/libnss_wrapper.so; do
      [ -s "$lib" ] || continue
      NSS_WRAPPER_PASSWD=$(mktemp)
      NSS_WRAPPER_GROUP=$(mktemp)
      export LD_PRELOAD=$lib NSS_WRAPPER_PASSWD NSS_WRAPPER_GROUP
      echo "postgres:x:$uid:$gid:PostgreSQL:$PGDATA:/bin/false" >"$NSS_WRAPPER_PASSWD"
      echo "postgres:x:$gid:" >"$NSS_WRAPPER_GROUP"
      break
    done
  fi
  if [ -n "${POSTGRES_INITDB_WALDIR:-}" ]; then set -- --waldir "$POSTGRES_INITDB_WALDIR" "$@"; fi
  # initdb refuses an empty password file, hence the newline; POSTGRES_INITDB_ARGS is word-split.
  eval 'initdb --username="$POSTGRES_USER" --pwfile=<(printf "%s\n" "$POSTGRES_PASSWORD") '"$POSTGRES_INITDB_ARGS"' "$@"'
  if [[ "${LD_PRELOAD:-}" == */libnss_wrapper.so ]]; then
    rm -f "$NSS_WRAPPER_PASSWD" "$NSS_WRAPPER_GROUP"
    unset LD_PRELOAD NSS_WRAPPER_PASSWD NSS_WRAPPER_GROUP
  fi
}

# Remote connections: one `host` line with the server's password_encryption (scram-sha-256 by default).
pg_allow_hosts() {
  [ "${1:-}" != postgres ] || shift
  local method
  method=$(postgres -C password_encryption "$@")
  : "${POSTGRES_HOST_AUTH_METHOD:=$method}"
  printf '\nhost all all all %s\n' "$POSTGRES_HOST_AUTH_METHOD" >>"$PGDATA/pg_hba.conf"
}

pg_sql() {
  local args=(psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --no-password --no-psqlrc)
  [ -z "$POSTGRES_DB" ] || args+=(--dbname "$POSTGRES_DB")
  PGHOST='' PGHOSTADDR='' "${args[@]}" "$@"
}

pg_create_database() {
  local found
  # POSTGRES_DB is emptied for pg_sql alone; the expansion names the database to create (the official logic).
  # shellcheck disable=SC2097,SC2098
  found=$(POSTGRES_DB='' pg_sql --dbname postgres --set db="$POSTGRES_DB" --tuples-only \
    <<<"SELECT 1 FROM pg_database WHERE datname = :'db';")
  if [ -z "$found" ]; then
    # shellcheck disable=SC2097,SC2098 # as above
    POSTGRES_DB='' pg_sql --dbname postgres --set db="$POSTGRES_DB" <<<'CREATE DATABASE :"db";'
  fi
}

pg_run_init_files() {
  local f
  for f in "$@"; do
    case "$f" in
      *.sh)
        if [ -x "$f" ]; then
          echo "$0: running $f"
          "$f"
        else
          echo "$0: sourcing $f"
          # shellcheck disable=SC1090
          . "$f"
        fi
        ;;
      *.sql) echo "$0: running $f" && pg_sql -f "$f" ;;
      *.sql.gz) echo "$0: running $f" && gunzip -c "$f" | pg_sql ;;
      *.sql.xz) echo "$0: running $f" && xzcat "$f" | pg_sql ;;
      *.sql.zst) echo "$0: running $f" && zstd -dc "$f" | pg_sql ;;
      *) echo "$0: ignoring $f" ;;
    esac
  done
}

pg_temp_server_start() {
  [ "${1:-}" != postgres ] || shift
  set -- "$@" -c listen_addresses='' -p "${PGPORT:-5432}"
  PGUSER="${PGUSER:-$POSTGRES_USER}" pg_ctl -D "$PGDATA" -o "$(printf '%q ' "$@")" -w start
}

pg_temp_server_stop() {
  PGUSER="${PGUSER:-postgres}" pg_ctl -D "$PGDATA" -m fast -w stop
}

# initdb + temporary server + database + init files. Arguments: the server's command line.
pg_initialise() {
  pg_check_settings
  ls /docker-entrypoint-initdb.d/ >/dev/null
  pg_initdb
  pg_allow_hosts "$@"
  export PGPASSWORD="${PGPASSWORD:-$POSTGRES_PASSWORD}"
  pg_temp_server_start "$@"
  pg_create_database
  pg_run_init_files /docker-entrypoint-initdb.d/*
  pg_temp_server_stop
  unset PGPASSWORD
  printf '\nPostgreSQL init process complete; ready for start up.\n\n'
}

pg_wants_help() {
  local a
  for a in "$@"; do
    case "$a" in -'?' | --help | --describe-config | -V | --version) return 0 ;; esac
  done
  return 1
}

pg_main() {
  if [ "${1:0:1}" = - ]; then set -- postgres "$@"; fi
  if [ "$1" = postgres ] && ! pg_wants_help "$@"; then
    pg_read_settings
    pg_prepare_directories
    if [ "$(id -u)" = 0 ]; then exec gosu postgres "${BASH_SOURCE[0]}" "$@"; fi
    if [ -z "$DATABASE_ALREADY_EXISTS" ]; then
      pg_initialise "$@"
    else
      printf '\nPostgreSQL Database directory appears to contain a database; Skipping initialization\n\n'
    fi
  fi
  exec "$@"
}

# Sourced (docker-ensure-initdb.sh): define the functions only.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then pg_main "$@"; fi
