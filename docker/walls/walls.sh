#!/bin/sh
# The lab's wall against routed clients (compose.yaml's `walls` service: the engine host's network, no
# capability but NET_ADMIN and NET_RAW). Before Docker 28 the engine forwards a packet that a machine of
# the classroom routes to a container's own address through this host, whatever address the lab's ports
# are published on (LAB_BIND): such a machine reaches the console and the editor gate of every lab
# directly (moby#45610). For each network of the lab this drops, before any address translation, every
# packet to the network's subnet that did not come in on the network's own bridge: a published port is
# still reached (its packets are addressed to the host, then translated), the containers of the network
# still reach each other, and nothing is reached by its container address from outside. Docker 28 adds
# rules of the same kind itself; these do no harm beside them.
#
#   walls.sh          install the rules, keep them in place (every WALLS_CHECK_SECONDS), remove them on exit
#   walls.sh check    the healthcheck: exit 0 when the ready file is fresh (cheap: no iptables at all),
#                     or, without one, when every rule is in place
# Settings: WALLS_TAG (the lab's bridges' prefix: the rules' comment), WALLS_NETS ("SUBNET=BRIDGE ..."),
# WALLS_READY (a file in a tmpfs volume the console reads: the time, written once every rule is in
# place and again on every check, removed on exit; the console serves nothing until it is fresh).
set -eu

tag="soar-lab:${WALLS_TAG:?WALLS_TAG is needed}"
nets=${WALLS_NETS:?WALLS_NETS is needed}
ready=${WALLS_READY:-}
interval=${WALLS_CHECK_SECONDS:-30}
say() { echo "walls: $*"; }

# The healthcheck with a ready file reads its time only: every 30 s in every lab of a class, a listing
# of the whole firewall would cost the host more than the lab's idle services do.
if [ "${1:-}" = check ] && [ -n "$ready" ]; then
  written=$(cat "$ready" 2>/dev/null) || exit 1
  [ $(($(date +%s) - ${written:-0})) -le $((2 * interval + 15)) ]
  exit
fi

# The iptables the engine uses (nft or legacy): the one whose rules already name the lab's bridges.
first_bridge=${nets%% *}
first_bridge=${first_bridge#*=}
ipt=""
for candidate in iptables-nft iptables-legacy; do
  if "$candidate" -w -S 2>/dev/null | grep -q -- "$first_bridge"; then
    ipt=$candidate
    break
  fi
done
if [ -z "$ipt" ]; then
  say "no iptables of this host (nft or legacy) holds the engine's rules for bridge $first_bridge: the engine does not manage iptables here, and the lab cannot close its networks to routed clients"
  exit 1
fi

# rule ACTION SUBNET BRIDGE: -C (in place?), -I (insert) or -D (delete) one network's rule.
rule() { "$ipt" -w -t raw "$1" PREROUTING -d "$2" ! -i "$3" -m comment --comment "$tag" -j DROP; }

in_place() { # every network's rule is in place
  for pair in $nets; do
    rule -C "${pair%%=*}" "${pair#*=}" 2>/dev/null || return 1
  done
}

ensure() { # inserts every rule that is not in place
  for pair in $nets; do
    rule -C "${pair%%=*}" "${pair#*=}" 2>/dev/null || rule -I "${pair%%=*}" "${pair#*=}"
  done
}

remove() {
  for pair in $nets; do
    while rule -D "${pair%%=*}" "${pair#*=}" 2>/dev/null; do :; done
  done
}

if [ "${1:-}" = check ]; then
  in_place
  exit 0
fi

# mark_ready: the time into the ready file, once every rule is in place (written whole, then renamed).
mark_ready() {
  [ -n "$ready" ] || return 0
  in_place && date +%s >"$ready.new" && mv -f "$ready.new" "$ready"
}

ensure
mark_ready
say "routed clients dropped on $nets ($ipt, raw PREROUTING)"
trap '[ -z "$ready" ] || rm -f "$ready"; remove; say "rules removed"; exit 0' TERM INT
# Another engine's or lab's write, or an engine restart, could drop a rule: put it back.
while :; do
  sleep "$interval" &
  wait $! || true
  ensure
  mark_ready
done
