# shellcheck shell=bash
# Which lab a command is for (LAB=name, or the single default lab) and its settings: each from the
# environment, else what `make up` recorded in the lab's settings file, else the default. Also writes that
# file (settings and lab-only secrets, private, kept until `make down`). The mode's and the approval
# limit's checks, the defaults a slot gives and the secrets are docker/lab/values.sh's, shared with the
# Kubernetes render.
#
# The default lab is slot 0; a named lab takes the first slot from 1 to LAB_POOL_SIZE that no other lab
# records and that neither Docker networks, routes nor listening ports hold (docker/lab/preflight.sh).

# shellcheck source=values.sh
. "$ROOT/docker/lab/values.sh"

# The settings a running lab keeps until `make down` (the order is the settings file's).
LAB_SETTINGS="LAB_MODE LAB_SUBNET LAB_EDITOR_PORT LAB_CONSOLE_PORT LAB_BIND APPROVAL_TIMEOUT_SECONDS LAB_STARTERS LAB_PUBLIC_ORIGIN LAB_CPUS"

valid_lab_name() { [[ $1 =~ $LAB_NAME_PATTERN ]]; }

# Where the settings files live: the checkout (developer setting LAB_DIR: the unit tests' own folder).
LAB_DIR=${LAB_DIR:-$ROOT}

# Sets LAB, PROJECT (compose project), ENV_FILE, REPORTS (host copies of the reports) and LAB_ARG (the
# `LAB=...` to repeat in the commands a message suggests); keeps the settings the caller gave (GIVEN_*),
# apart from the values this script derives and exports later.
lab_identity() {
  local name
  for name in $LAB_SETTINGS; do printf -v "GIVEN_$name" '%s' "${!name:-}"; done
  LAB=${LAB:-}
  if [ -z "$LAB" ]; then
    PROJECT=soar-lab ENV_FILE=$LAB_DIR/.env REPORTS=$ROOT/reports LAB_ARG=""
    return 0
  fi
  valid_lab_name "$LAB" ||
    die "LAB=$LAB is not a lab name: $LAB_NAME_WORDS (e.g. LAB=alice)"
  PROJECT=soar-lab-$LAB ENV_FILE=$LAB_DIR/labs/$LAB.env REPORTS=$ROOT/reports/$LAB LAB_ARG=" LAB=$LAB"
}

env_value() { [ -f "$ENV_FILE" ] && sed -n "s/^$1=//p" "$ENV_FILE" | tail -n 1; }

# setting NAME DEFAULT: what the caller gave wins, then the lab's settings file, then the default.
setting() {
  local given=GIVEN_$1 value
  value=${!given:-}
  [ -n "$value" ] || value=$(env_value "$1" || true)
  echo "${value:-$2}"
}

valid_port() { in_range "$1" 1 65535; }

# load_settings [SLOT]: reads and checks the settings, derives the addresses, exports what compose.yaml
# interpolates. SLOT (default 0) only matters for a lab that has no settings file yet.
# scheme_of_bind ADDRESS: how a lab (and the class board) published on ADDRESS is reached: on a classroom
# address TLS only (docker/lab/tls.sh), on loopback plain HTTP.
scheme_of_bind() { if [ "$1" = 127.0.0.1 ]; then echo http; else echo https; fi; }

load_settings() {
  local slot=${1:-0} first bits name
  LAB_MODE=$(setting LAB_MODE "$DEFAULT_LAB_MODE")
  LAB_SUBNET=$(setting LAB_SUBNET "$(slot_subnet "$slot")")
  LAB_EDITOR_PORT=$(setting LAB_EDITOR_PORT "$(slot_editor_port "$slot")")
  LAB_CONSOLE_PORT=$(setting LAB_CONSOLE_PORT "$(slot_console_port "$slot")")
  LAB_BIND=$(setting LAB_BIND 127.0.0.1)
  APPROVAL_TIMEOUT_SECONDS=$(setting APPROVAL_TIMEOUT_SECONDS "$DEFAULT_APPROVAL_TIMEOUT_SECONDS")
  LAB_STARTERS=$(setting LAB_STARTERS "$DEFAULT_LAB_STARTERS")
  LAB_PUBLIC_ORIGIN=$(setting LAB_PUBLIC_ORIGIN "")
  LAB_CPUS=$(setting LAB_CPUS "$DEFAULT_LAB_CPUS")
  check_lab_mode "$LAB_MODE" "exercise (the default: nothing published, the trainee builds) or demo (the reference published)"
  if ! is_ipv4_cidr "$LAB_SUBNET" || [ "${LAB_SUBNET#*/}" != 24 ]; then die "LAB_SUBNET=$LAB_SUBNET is not an IPv4 /24 network (e.g. 172.30.66.0/24)"; fi
  for name in LAB_EDITOR_PORT LAB_CONSOLE_PORT; do
    valid_port "${!name}" || die "$name=${!name} is not a port number (1-65535)"
  done
  [ "$LAB_EDITOR_PORT" != "$LAB_CONSOLE_PORT" ] || die "LAB_EDITOR_PORT and LAB_CONSOLE_PORT are both $LAB_EDITOR_PORT"
  is_ipv4 "$LAB_BIND" || die "LAB_BIND=$LAB_BIND is not an IPv4 address of this machine"
  [ "$LAB_BIND" != 0.0.0.0 ] ||
    die "LAB_BIND=0.0.0.0 would publish the lab on every address: give this machine's address on the classroom network"
  check_lab_starters "$LAB_STARTERS" "(make starter: a workflow complete up to the stage before, for a trainee who is stuck)"
  check_approval_timeout "$APPROVAL_TIMEOUT_SECONDS"
  check_lab_cpus "$LAB_CPUS" "(docker's --cpus for n8n, e.g. LAB_CPUS=0.5)"
  if [ -n "$LAB_PUBLIC_ORIGIN" ]; then
    check_public_origin "$LAB_PUBLIC_ORIGIN"
    LAB_PUBLIC_ORIGIN=${LAB_PUBLIC_ORIGIN%/}
    # The proxy is the only way in: a lab also published on the network would take cleartext, and a
    # browser there could write its own X-Forwarded-For, the address its console session is bound to.
    [ "$LAB_BIND" = 127.0.0.1 ] ||
      die "LAB_PUBLIC_ORIGIN=$LAB_PUBLIC_ORIGIN with LAB_BIND=$LAB_BIND: behind a TLS proxy the lab stays on loopback (LAB_BIND=127.0.0.1); the proxy listens on the classroom network"
  fi
  read -r first _ <<<"$(cidr_range "$LAB_SUBNET")"
  bits=${LAB_SUBNET#*/}
  LAB_SUBNET="$(int_to_ip "$first")/$bits"
  # The /24 in four /26: the lab network (the mock API and n8n), n8n's backend, the editor network, n8n's
  # front (n8n, the console's gate, the tools).
  LAB_INTERNAL_SUBNET="$(int_to_ip "$first")/26"
  LAB_BACKEND_SUBNET="$(int_to_ip $((first + 64)))/26"
  LAB_EDITOR_SUBNET="$(int_to_ip $((first + 128)))/26"
  LAB_FRONT_SUBNET="$(int_to_ip $((first + 192)))/26"
  LAB_API_IP=$(int_to_ip $((first + 2)))
  # n8n's addresses on the lab network (its ip_range): the mock API admits these only; the host's address
  # on it (the gateway) is kept out of them.
  LAB_N8N_RANGE="$(int_to_ip $((first + 32)))/27"
  LAB_INTERNAL_GATEWAY=$(int_to_ip $((first + 1)))
  # The bridges' names: soar-<the /24's three octets in hex>-<i|b|e|f> (at most 15 characters), one set a
  # lab, named so that the walls service can name them (compose.yaml).
  LAB_BRIDGE_PREFIX=$(printf 'soar-%06x' $((first >> 8)))
  # What a trainee opens: the lab's ports, on the proxy's name when a TLS proxy fronts it.
  LAB_SCHEME=http
  if [ -n "$LAB_PUBLIC_ORIGIN" ]; then
    EDITOR_URL=$LAB_PUBLIC_ORIGIN:$LAB_EDITOR_PORT CONSOLE_URL=$LAB_PUBLIC_ORIGIN:$LAB_CONSOLE_PORT
  else
    LAB_SCHEME=$(scheme_of_bind "$LAB_BIND")
    EDITOR_URL=$LAB_SCHEME://$LAB_BIND:$LAB_EDITOR_PORT CONSOLE_URL=$LAB_SCHEME://$LAB_BIND:$LAB_CONSOLE_PORT
  fi
  # n8n's session cookie is `Secure` where the browser reaches n8n over TLS only (the gate on a classroom
  # address). n8n writes the flag whatever the hop from the gate is (plain HTTP inside), and its editor
  # refuses to start only on a plain http:// page (docs/trainer-guide.md); on loopback it stays plain.
  LAB_N8N_SECURE_COOKIE=false
  [ "$LAB_SCHEME" != https ] || LAB_N8N_SECURE_COOKIE=true
  # The console's session cookie is named for its lab (and its published port).
  CONSOLE_LAB=${LAB:-default}
  export LAB_SCHEME LAB_MODE LAB_SUBNET LAB_EDITOR_PORT LAB_CONSOLE_PORT LAB_BIND APPROVAL_TIMEOUT_SECONDS LAB_STARTERS \
    LAB_PUBLIC_ORIGIN LAB_CPUS CONSOLE_LAB LAB_INTERNAL_SUBNET LAB_BACKEND_SUBNET LAB_EDITOR_SUBNET LAB_FRONT_SUBNET LAB_API_IP LAB_N8N_RANGE LAB_INTERNAL_GATEWAY LAB_BRIDGE_PREFIX LAB_N8N_SECURE_COOKIE
}

# A running lab keeps the settings it was made with.
same_settings_as_running() {
  local name recorded
  for name in $LAB_SETTINGS; do
    recorded=$(env_value "$name" || true)
    [ -z "$recorded" ] || [ "$recorded" = "${!name}" ] ||
      die "$(lab_title) is running with $name=$recorded; to change it: make down$LAB_ARG, then make up$LAB_ARG $name=${!name}"
  done
}

lab_title() { if [ -n "$LAB" ]; then echo "lab $LAB"; else echo "the lab"; fi; }

# The settings and lab-only secrets, written once and kept until `make down`. Never a production credential.
ensure_env_file() {
  [ -f "$ENV_FILE" ] && return 0
  mkdir -p "$(dirname "$ENV_FILE")"
  local name login=trainee
  [ -z "$LAB" ] || login=$LAB
  (
    umask 077
    {
      echo "# Written by \`make up$LAB_ARG\` (docker/lab.sh) for this lab only; removed by \`make down$LAB_ARG\`. Never commit it."
      for name in $LAB_SETTINGS LAB_INTERNAL_SUBNET LAB_BACKEND_SUBNET LAB_EDITOR_SUBNET LAB_FRONT_SUBNET LAB_API_IP LAB_N8N_RANGE LAB_INTERNAL_GATEWAY LAB_BRIDGE_PREFIX; do
        echo "$name=${!name}"
      done
      # The version that made the lab (docker/lab/update.sh brings an older one to the checkout's).
      echo "LAB_VERSION=$LAB_VERSION"
      for name in N8N_ENCRYPTION_KEY POSTGRES_PASSWORD N8N_OWNER_EMAIL N8N_OWNER_PASSWORD; do
        echo "$name=$(lab_secret "$name" "$login")"
      done
      # A class's lab (LAB=name: other trainees share this host) or one published beyond loopback: the
      # console asks for this first. The single lab on loopback is one person's own machine: no secret.
      if [ -n "$LAB" ] || [ "$LAB_BIND" != 127.0.0.1 ] || [ -n "$LAB_PUBLIC_ORIGIN" ]; then echo "CONSOLE_SECRET=$(lab_secret CONSOLE_SECRET)"; fi
    } >"$ENV_FILE"
  )
  say "wrote $(lab_title)'s settings and secrets to ${ENV_FILE#"$LAB_DIR"/} (removed by make down$LAB_ARG)"
}

set_env_value() { # set_env_value NAME VALUE: replace or append, keeping the file private
  local rest
  rest=$(grep -v "^$1=" "$ENV_FILE" || true)
  # A .new left by an interrupted write would keep its own mode: it goes first.
  rm -f "$ENV_FILE.new"
  (umask 077 && printf '%s\n%s=%s\n' "$rest" "$1" "$2" >"$ENV_FILE.new" && mv "$ENV_FILE.new" "$ENV_FILE")
}

unset_env_values() { # unset_env_values NAME...: removes them, keeping the file private
  local rest name
  rest=$(cat "$ENV_FILE")
  for name in "$@"; do rest=$(grep -v "^$name=" <<<"$rest" || true); done
  rm -f "$ENV_FILE.new"
  (umask 077 && printf '%s\n' "$rest" >"$ENV_FILE.new" && mv "$ENV_FILE.new" "$ENV_FILE")
}

# The settings files of every other lab on this checkout (they hold their slots while they exist).
other_env_files() {
  local f
  for f in "$LAB_DIR/.env" "$LAB_DIR"/labs/*.env; do
    [ -f "$f" ] && [ "$f" != "$ENV_FILE" ] && echo "$f"
  done
  return 0
}
