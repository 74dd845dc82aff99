# shellcheck shell=bash
# Refusals before anything starts (each one line, before a container, network or secret is made), and
# the choice of a free slot for a new named lab.
#
# Memory: one lab needs LAB_MIN_MEMORY_MB (3072) of the engine's memory; each lab beyond the first,
# LAB_MEMORY_PER_LAB_MB (1024) more (docs/appliance.md has the measured figures behind both).

# "NAME SUBNET" for every Docker network with an IPv4 subnet (a network may list several).
docker_subnets() {
  docker network ls -q | xargs -r docker network inspect -f '{{.Name}}{{range .IPAM.Config}} {{.Subnet}}{{end}}' 2>/dev/null |
    awk '{for (i = 2; i <= NF; i++) print $1, $i}'
}

# The host's own routes (a VPN, another bridge), not Docker's bridges.
host_routes() {
  command -v ip >/dev/null 2>&1 || return 0
  ip -4 route show 2>/dev/null | grep -v '^default' | grep -E '^[0-9.]+/[0-9]+ ' | grep -v ' dev br-\| dev docker0' |
    awk '{print $1}'
}

port_in_use() { (: <"/dev/tcp/$1/$2") 2>/dev/null; }

# What holds SUBNET, PORT_A or PORT_B besides this lab: prints a reason, or nothing when all are free.
slot_taken_by() {
  local subnet=$1 editor=$2 console=$3 net other f value
  while read -r net other; do
    is_ipv4_cidr "$other" || continue
    case "$net" in "${PROJECT}_"*) continue ;; esac
    cidrs_overlap "$subnet" "$other" && { echo "LAB_SUBNET=$subnet overlaps the Docker network '$net' ($other)"; return 0; }
  done < <(docker_subnets)
  while read -r other; do
    if ! is_ipv4_cidr "$other" || [ "${other#*/}" -lt 8 ]; then continue; fi
    cidrs_overlap "$subnet" "$other" && { echo "LAB_SUBNET=$subnet overlaps a route of this machine ($other)"; return 0; }
  done < <(host_routes)
  for f in $(other_env_files); do
    value=$(sed -n 's/^LAB_SUBNET=//p' "$f")
    [ -n "$value" ] && cidrs_overlap "$subnet" "$value" && { echo "LAB_SUBNET=$subnet overlaps the lab of ${f#"$LAB_DIR"/} ($value)"; return 0; }
    grep -qE "^LAB_(EDITOR|CONSOLE)_PORT=($editor|$console)$" "$f" && { echo "port $editor or $console is the lab's of ${f#"$LAB_DIR"/}"; return 0; }
  done
  port_in_use "$LAB_BIND" "$editor" && { echo "$LAB_BIND:$editor is in use"; return 0; }
  port_in_use "$LAB_BIND" "$console" && { echo "$LAB_BIND:$console is in use"; return 0; }
  return 0
}

# The first free slot for a new named lab (settings the caller gave are taken as they are). Needs
# LAB_BIND (load_settings first).
free_slot() {
  local s size=${LAB_POOL_SIZE:-64}
  in_range "$size" 1 189 || die "LAB_POOL_SIZE=$size is not a number of labs from 1 to 189"
  for ((s = 1; s <= size; s++)); do
    [ -z "$(slot_taken_by "${GIVEN_LAB_SUBNET:-$(slot_subnet "$s")}" "${GIVEN_LAB_EDITOR_PORT:-$(slot_editor_port "$s")}" "${GIVEN_LAB_CONSOLE_PORT:-$(slot_console_port "$s")}")" ] &&
      { echo "$s"; return 0; }
  done
  die "no free lab slot: all $size networks 172.30.67.0/24 to $(slot_subnet "$size") or their ports are in use (LAB_POOL_SIZE)"
}

# How many labs of this checkout's kind run on the engine now (compose projects soar-lab*).
running_labs() {
  docker ps --format '{{.Label "com.docker.compose.project"}}' | grep -E '^soar-lab(-[a-z0-9-]+)?$' | sort -u | grep -c . || true
}

# need_memory N: the engine has room for N labs in all (those running included).
need_memory() {
  local labs=$1 min_mb=${LAB_MIN_MEMORY_MB:-3072} per_lab=${LAB_MEMORY_PER_LAB_MB:-1024} total_mb need_mb
  total_mb=$(($(docker info -f '{{.MemTotal}}' 2>/dev/null || echo 0) / 1048576))
  need_mb=$((min_mb + (labs - 1) * per_lab))
  [ "$total_mb" -ge "$need_mb" ] ||
    die "the Docker engine has ${total_mb} MiB of memory; $labs lab(s) need at least ${need_mb} MiB (${min_mb} for one, ${per_lab} for each more: LAB_MIN_MEMORY_MB, LAB_MEMORY_PER_LAB_MB)"
}

# The setting to change for a reason slot_taken_by gave, with a value to try.
other_setting_hint() {
  local first
  case "$1" in
    LAB_SUBNET=*)
      read -r first _ <<<"$(cidr_range "$LAB_SUBNET")"
      echo "LAB_SUBNET=$(int_to_ip $(((first + 256) & 0xFFFFFFFF)))/24"
      ;;
    *) echo "LAB_EDITOR_PORT=$((LAB_EDITOR_PORT + 100)) LAB_CONSOLE_PORT=$((LAB_CONSOLE_PORT + 100))" ;;
  esac
}

preflight() {
  local taken
  need_memory $(($(running_labs) + 1))
  port_in_use "$LAB_BIND" "$LAB_EDITOR_PORT" &&
    die "$LAB_BIND:$LAB_EDITOR_PORT (the n8n editor) is already in use: stop what listens there, or choose another port: make up$LAB_ARG LAB_EDITOR_PORT=$((LAB_EDITOR_PORT + 100))"
  port_in_use "$LAB_BIND" "$LAB_CONSOLE_PORT" &&
    die "$LAB_BIND:$LAB_CONSOLE_PORT (the lab console) is already in use: stop what listens there, or choose another port: make up$LAB_ARG LAB_CONSOLE_PORT=$((LAB_CONSOLE_PORT + 100))"
  taken=$(slot_taken_by "$LAB_SUBNET" "$LAB_EDITOR_PORT" "$LAB_CONSOLE_PORT")
  [ -z "$taken" ] || die "$taken: choose another, e.g. make up$LAB_ARG $(other_setting_hint "$taken")"
}
