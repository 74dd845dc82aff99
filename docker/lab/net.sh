# shellcheck shell=bash
# IPv4 arithmetic in bash (no external tool): addresses as integers, CIDR ranges and overlaps.

ip_to_int() {
  local IFS=. a b c d
  read -r a b c d <<<"$1"
  echo $(((a << 24) | (b << 16) | (c << 8) | d))
}
int_to_ip() { echo "$((($1 >> 24) & 255)).$((($1 >> 16) & 255)).$((($1 >> 8) & 255)).$(($1 & 255))"; }

is_ipv4() {
  [[ $1 =~ ^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})$ ]] || return 1
  local i
  for i in 1 2 3 4; do [ "${BASH_REMATCH[$i]}" -le 255 ] || return 1; done
}
is_ipv4_cidr() {
  [[ $1 =~ ^([0-9.]+)/([0-9]{1,2})$ ]] && is_ipv4 "${BASH_REMATCH[1]}" && [ "${BASH_REMATCH[2]}" -le 32 ]
}

# "first last" addresses of a CIDR, as integers.
cidr_range() {
  local base=${1%/*} bits=${1#*/} start size
  size=$((1 << (32 - bits)))
  start=$(($(ip_to_int "$base") & ~(size - 1) & 0xFFFFFFFF))
  echo "$start $((start + size - 1))"
}
cidrs_overlap() {
  local a1 a2 b1 b2
  read -r a1 a2 <<<"$(cidr_range "$1")"
  read -r b1 b2 <<<"$(cidr_range "$2")"
  [ "$a1" -le "$b2" ] && [ "$b1" -le "$a2" ]
}
