#!/usr/bin/env bash
# An engine that gives every new network IPv6 by default, as a trainer's Docker 27 or later can be set
# to (daemon.json's default-network-opts: com.docker.network.enable_ipv6=true): the proof that the lab's
# networks hold IPv6 off by themselves (compose.yaml's enable_ipv6: false) and not by the engine's default.
# Debian 13's Docker 26.1 copies that option into a new network and ignores it, so this is Debian sid's
# docker.io (28), unpacked, not installed, under $LAB_CACHE/docker-sid (once; a private apt state, the
# host's own apt set-up untouched), with bookworm's runc, tini and iptables (the host's glibc), running in
# a network namespace of its own, as ../shared/tools/docker-engine/start.sh runs Debian 13's.
#   ipv6-engine.sh start DIR NETNS [SECONDS]   prints DOCKER_HOST=unix://DIR/docker.sock
#   ipv6-engine.sh stop DIR NETNS              stops that dockerd (by its recorded PID), removes NETNS
# Use that engine's own client and Compose plugin (sid's, 2.40), as a trainer on Docker 28 has them: an
# older client (Debian 13's docker 26.1 and compose 2.26, API 1.45) sends EnableIPv6 false on every
# network it makes, so the engine's default never applies to what it makes:
#   PATH=$LAB_CACHE/docker-sid/root/usr/bin:$PATH DOCKER_CONFIG=$LAB_CACHE/docker-sid/docker-config docker ...
# Needs root, iproute2, apt-get, dpkg-deb. Env: LAB_CACHE (default ~/.cache/soar-lab), LAB_SID_MIRROR
# (default http://deb.debian.org/debian).
set -euo pipefail

CACHE=${LAB_CACHE:-$HOME/.cache/soar-lab}/docker-sid
MIRROR=${LAB_SID_MIRROR:-http://deb.debian.org/debian}
LIBS="iptables libip4tc2 libip6tc2 libxtables12 libnftnl11 libnetfilter-conntrack3 libnfnetlink0"

unpack() {
  [ -x "$CACHE/root/usr/sbin/dockerd" ] && [ -x "$CACHE/docker-config/cli-plugins/docker-compose" ] && return 0
  echo "ipv6-engine: first use: fetching and unpacking Debian sid's docker.io into $CACHE (~60 MB, once)" >&2
  rm -rf "$CACHE.partial"
  mkdir -p "$CACHE.partial"/{apt/lists/partial,apt/cache/archives/partial,debs,root}
  local P=$CACHE.partial
  echo "deb $MIRROR sid main" >"$P/apt/sources.list"
  local A=(-o Dir::Etc::sourcelist="$P/apt/sources.list" -o Dir::Etc::sourceparts=- -o Dir::State::Lists="$P/apt/lists"
    -o Dir::Cache="$P/apt/cache" -o APT::Sandbox::User=root)
  timeout 300 apt-get "${A[@]}" update >/dev/null
  (cd "$P/debs" && timeout 300 apt-get "${A[@]}" download docker.io docker-cli docker-compose containerd >/dev/null)
  # runc, tini and iptables from the host's own suite: sid's builds need a newer glibc than 2.36.
  # shellcheck disable=SC2086 # a list of package names
  (cd "$P/debs" && timeout 300 apt-get -o APT::Sandbox::User=root download runc tini $LIBS >/dev/null)
  local d
  for d in "$P"/debs/*.deb; do dpkg-deb -x "$d" "$P/root"; done
  mkdir -p "$P/docker-config/cli-plugins"
  cp "$P/root/usr/libexec/docker/cli-plugins/docker-compose" "$P/docker-config/cli-plugins/"
  rm -rf "$P/apt"
  rm -rf "$CACHE"
  mv "$P" "$CACHE"
}

start() {
  local D=$1 NS=$2 ttl=${3:-1800} n
  unpack
  stop "$D" "$NS"
  mkdir -p "$D/bin"
  # iptables and ip6tables: bookworm's legacy backend, from the unpacked tree (docker 28 needs both).
  for n in iptables iptables-save iptables-restore ip6tables ip6tables-save ip6tables-restore; do
    # shellcheck disable=SC2016 # the wrapper's own variables, expanded when it runs
    printf '#!/bin/bash\nR=%s/root\nLD_LIBRARY_PATH=$R/usr/lib/x86_64-linux-gnu XTABLES_LIBDIR=$R/usr/lib/x86_64-linux-gnu/xtables exec -a %s $R/usr/sbin/xtables-legacy-multi "$@"\n' \
      "$CACHE" "$n" >"$D/bin/$n"
    chmod +x "$D/bin/$n"
  done
  # IPv6 for every new network, from a ULA pool beside the IPv4 one (start.sh's: link-local, never the
  # host's own ranges); ip6tables on, as Docker 27 and later have it by default.
  cat >"$D/daemon.json" <<'EOF'
{
  "default-network-opts": { "bridge": { "com.docker.network.enable_ipv6": "true" } },
  "default-address-pools": [
    { "base": "169.254.0.0/16", "size": 24 },
    { "base": "fd5a:11ab:600::/48", "size": 64 }
  ],
  "ip6tables": true,
  "bridge": "none"
}
EOF
  ip netns add "$NS"
  ip -n "$NS" link set lo up
  rm -f "$D/docker.sock"
  local path=$D/bin:$CACHE/root/usr/bin:$CACHE/root/usr/sbin:$PATH
  # nsenter, not `ip netns exec`, which remounts /sys and hides the cgroup mounts dockerd needs.
  nsenter --net="/var/run/netns/$NS" setsid timeout "$ttl" env PATH="$path" dockerd --config-file "$D/daemon.json" \
    --data-root "$D/state/data" --exec-root "$D/exec" --pidfile "$D/state/dockerd.pid" -H "unix://$D/docker.sock" \
    >"$D/dockerd.log" 2>&1 &
  echo $! >"$D/runner.pid"
  for _ in $(seq 200); do
    if [ -S "$D/docker.sock" ] && "$CACHE/root/usr/bin/docker" -H "unix://$D/docker.sock" info >/dev/null 2>&1; then
      echo "DOCKER_HOST=unix://$D/docker.sock"
      return 0
    fi
    sleep 0.1
  done
  echo "ipv6-engine: dockerd did not start; last log lines:" >&2
  tail -n 8 "$D/dockerd.log" >&2
  return 1
}

stop() {
  local D=$1 NS=$2 i
  if [ -f "$D/runner.pid" ]; then
    kill -TERM -- "-$(cat "$D/runner.pid")" 2>/dev/null || true
    for i in $(seq 50); do
      kill -0 "$(cat "$D/runner.pid")" 2>/dev/null || break
      [ "$i" = 50 ] && kill -KILL -- "-$(cat "$D/runner.pid")" 2>/dev/null
      sleep 0.1
    done
    rm -f "$D/runner.pid"
  fi
  ip netns del "$NS" 2>/dev/null || true
  return 0
}

case "${1:-}" in
  start) start "$2" "$3" "${4:-1800}" ;;
  stop) stop "$2" "$3" ;;
  *) echo "usage: ipv6-engine.sh start|stop DIR NETNS [SECONDS]" >&2 && exit 2 ;;
esac
