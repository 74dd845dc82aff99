# shellcheck shell=bash
# TEST INFRASTRUCTURE ONLY: the recipe of the n8nio/n8n:2.41.1 look-alike, sourced by build.sh.
# Everything in this folder, Node's version and the n8n lockfile are inputs of the rootfs tarball's hash.
# Node 24 and n8n come from the `make e2e` install cache (N8N_DIR, NODE_BIN: set by build.sh).
TAG=n8nio/n8n:2.41.1
# n8n-base's OS packages, less GraphicsMagick and the Microsoft fonts (docs/platform-images.md).
PKGS="tini,ca-certificates,tzdata,openssl,git,openssh-client,jq"
STOPSIGNAL=""

# The node user of the official Node images: uid/gid 1000, home /home/node, shell /bin/sh.
essential_lines() {
  echo 'passwd node:x:1000:1000::/home/node:/bin/sh'
  echo 'group node:x:1000:'
}

copy_files() { echo "docker-entrypoint.sh docker-entrypoint.sh"; }

customize() {
  cat <<'SH'
set -eux
install -d -o node -g node -m 755 /home/node /home/node/.n8n
SH
}

finish_rootfs() { :; }

# Appended to the packed rootfs, root-owned as the official COPY leaves them: node in /usr/local/bin,
# n8n in /usr/local/lib/node_modules/n8n with its dependencies beside it (as the install cache hoisted
# them), /usr/local/bin/n8n linking to its bin. Source maps are left out (~440 MB; nothing loads them
# without --enable-source-maps).
append_to_tarball() {
  local tarball=$1 stage=$2
  mkdir -p "$stage/usr/local/bin"
  cp "$NODE_BIN" "$stage/usr/local/bin/node"
  ln -s /usr/local/lib/node_modules/n8n/bin/n8n "$stage/usr/local/bin/n8n"
  tar -rf "$tarball" --format=posix --owner=0 --group=0 --numeric-owner \
    --exclude='*.js.map' --exclude='*.mjs.map' --exclude='*.cjs.map' --exclude='*.css.map' \
    --exclude='*.d.ts.map' --exclude='node_modules/.package-lock.json' \
    --transform='s,^node_modules,usr/local/lib/node_modules,S' \
    -C "$stage" ./usr/local/bin/node ./usr/local/bin/n8n -C "$N8N_DIR" node_modules
}

changes() {
  printf '%s\n' 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    "ENV NODE_VERSION=$("$NODE_BIN" -v | tr -d v)" 'ENV NODE_ENV=production' 'ENV N8N_RELEASE_TYPE=stable' \
    'ENV SHELL=/bin/sh' 'WORKDIR /home/node' 'USER node' 'EXPOSE 5678/tcp' \
    'ENTRYPOINT ["tini", "--", "/docker-entrypoint.sh"]'
}
