#!/bin/sh
# n8n's entrypoint in the lab (compose.yaml's n8n service, before the image's own): n8n's two secrets, its
# database password and its encryption key, reach n8n as files, never in its environment. A workflow reads
# n8n's whole process environment as $env (N8N_BLOCK_ENV_ACCESS_IN_NODE=false: the trainee's workflow reads
# MOCK_API_URL there), so nothing secret may be in it.
#
# The container is given each secret NAME as LAB_SECRET_NAME; this writes it, without a newline, to the
# file that NAME_FILE names (a tmpfs of n8n's user, mode 0700: the file is 0600, n8n's uid only), removes
# LAB_SECRET_NAME from the environment and runs its arguments (`tini -- /docker-entrypoint.sh`, the image's
# entrypoint) in its place by exec: PID 1 and every process n8n starts have neither. n8n reads NAME_FILE
# (@n8n/config) only when NAME itself is unset, so a NAME in the environment is refused: it would win, and
# be in $env.
# Runs as n8n's user on the read-only root (POSIX sh: the image's busybox or dash); printf and echo are the
# shell's own, so a secret is never a process's argument. The Read/Write Files node cannot read the files
# (N8N_RESTRICT_FILE_ACCESS_TO), test/lab/secrets.sh proves all of it on a running lab.
#   /bin/sh secrets-entrypoint.sh COMMAND [ARG...]
set -eu
umask 077

fail() {
  echo "lab: n8n: $*" >&2
  exit 1
}

[ "$#" -gt 0 ] || fail "secrets-entrypoint.sh: no command to run"
for name in DB_POSTGRESDB_PASSWORD N8N_ENCRYPTION_KEY; do
  eval "plain=\${$name+set} value=\${LAB_SECRET_$name:-} file=\${${name}_FILE:-}"
  [ -z "$plain" ] || fail "$name is in the environment, where a workflow's \$env reads it: give it as LAB_SECRET_$name"
  [ -n "$value" ] || fail "LAB_SECRET_$name is empty: run \`make up\` (it generates the lab's secrets)"
  [ -n "$file" ] || fail "${name}_FILE is not set: where n8n reads $name from"
  printf '%s' "$value" >"$file" || fail "cannot write $name to $file"
  unset "LAB_SECRET_$name"
done
unset name plain value file
exec "$@"
