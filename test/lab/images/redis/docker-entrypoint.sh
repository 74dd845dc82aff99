#!/bin/sh
# TEST INFRASTRUCTURE ONLY (test/lab/images): the entrypoint of the look-alike of redis:7.4.1-alpine.
# Behaves as docker-library/redis's: arguments that start with `-` or name a `.conf` file go to
# redis-server; started as root it chowns the working directory (/data) to redis and steps down
# (su-exec, here gosu under that name); umask 0077 unless one other than 0022 is set.
set -e
if [ "${1#-}" != "$1" ] || [ "${1%.conf}" != "$1" ]; then
  set -- redis-server "$@"
fi
if [ "$1" = redis-server ] && [ "$(id -u)" = 0 ]; then
  find . \! -user redis -exec chown redis '{}' +
  exec su-exec redis "$0" "$@"
fi
if [ "$(umask)" = 0022 ]; then umask 0077; fi
exec "$@"
