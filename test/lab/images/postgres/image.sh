# shellcheck shell=bash
# TEST INFRASTRUCTURE ONLY: the recipe of the postgres:16.4-alpine look-alike, sourced by build.sh.
# Everything in this folder is an input of the rootfs tarball's hash.
TAG=postgres:16.4-alpine
PKGS="postgresql-15,gosu,locales,tzdata,xz-utils,zstd"
STOPSIGNAL=SIGINT

# Users and config files, added before the packages' install scripts run (they keep an existing user):
# Alpine's postgres uid/gid 70; no automatic 15/main cluster from postgresql-common.
essential_lines() {
  echo 'passwd postgres:x:70:70:PostgreSQL administrator:/var/lib/postgresql:/bin/sh'
  echo 'group postgres:x:70:'
  echo 'file /etc/postgresql-common/createcluster.d/docker.conf create_main_cluster = false'
}

# Files from this folder: source, path in the image (root-owned, 0755).
copy_files() {
  echo "docker-entrypoint.sh usr/local/bin/docker-entrypoint.sh"
  echo "docker-ensure-initdb.sh usr/local/bin/docker-ensure-initdb.sh"
}

# Run in the rootfs (chroot) once the packages are in: what the official Dockerfile prepares.
customize() {
  cat <<'SH'
set -eux
localedef -i en_US -c -f UTF-8 -A /usr/share/locale/locale.alias en_US.UTF-8
sample=/usr/share/postgresql/15/postgresql.conf.sample
cp "$sample" "$sample.orig"
sed -ri "s!^#?(listen_addresses)\s*=\s*\S+.*!\1 = '*'!" "$sample"
grep -F "listen_addresses = '*'" "$sample"
install -d -o postgres -g postgres -m 1777 /var/lib/postgresql /var/lib/postgresql/data
mkdir -p /docker-entrypoint-initdb.d
ln -sf /usr/sbin/gosu /usr/local/bin/su-exec
ln -sT docker-ensure-initdb.sh /usr/local/bin/docker-enforce-initdb.sh
SH
}

# After mmdebstrap (which empties /run): /var/run/postgresql as the official image ships it.
finish_rootfs() { install -d -o 70 -g 70 -m 3777 "$1/run/postgresql"; }

# docker import --change lines: the official image's config.
changes() {
  printf '%s\n' 'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    'ENV LANG=en_US.utf8' 'ENV PG_MAJOR=15' 'ENV PGDATA=/var/lib/postgresql/data' \
    'VOLUME /var/lib/postgresql/data' 'EXPOSE 5432' \
    'ENTRYPOINT ["docker-entrypoint.sh"]' 'CMD ["postgres"]'
}
