# shellcheck shell=bash
# TEST INFRASTRUCTURE ONLY: the recipe of the redis:7.4.1-alpine look-alike, sourced by build.sh.
# Everything in this folder is an input of the rootfs tarball's hash.
TAG=redis:7.4.1-alpine
PKGS="redis-server,redis-tools,gosu,tzdata"
STOPSIGNAL=""

# The official image's redis user: uid 999, group redis gid 1000.
essential_lines() {
  echo 'passwd redis:x:999:1000:redis:/home/redis:/sbin/nologin'
  echo 'group redis:x:1000:'
}

copy_files() {
  echo "docker-entrypoint.sh usr/local/bin/docker-entrypoint.sh"
  echo "redis-server usr/local/bin/redis-server"
}

customize() {
  cat <<'SH'
set -eux
install -d -o redis -g redis -m 755 /data
ln -sf /usr/sbin/gosu /usr/local/bin/su-exec
SH
}

finish_rootfs() { :; }

changes() {
  printf '%s\n' 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    'VOLUME /data' 'WORKDIR /data' 'EXPOSE 6379' \
    'ENTRYPOINT ["docker-entrypoint.sh"]' 'CMD ["redis-server"]'
}
