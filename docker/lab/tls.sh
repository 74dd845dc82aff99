#!/usr/bin/env bash
# The classroom's TLS certificates, made with openssl (the host's own, as every distribution ships it):
# no cryptography here, only openssl's commands. Sourced by docker/lab.sh; run by the tests as
#   bash docker/lab/tls.sh DIR ADDRESS     (the class CA in DIR made once, the address's certificate)
#
# DIR (the host's lab settings: labs/tls/, 0700) holds the class CA (class-ca.pem, class-ca.key) and a
# certificate per classroom address (ADDRESS.pem, ADDRESS.key), keys 0600. Only an address's certificate
# and key reach a lab, as the console's environment (CONSOLE_TLS_CERT, CONSOLE_TLS_KEY); the CA's key
# never leaves DIR, and no container a workflow runs in sees either.

# tls_class_ca DIR: the class CA, made once (ten years, P-256); an existing one is kept.
tls_class_ca() {
  local dir=$1
  (umask 077 && mkdir -p "$dir")
  chmod 700 "$dir"
  [ -s "$dir/class-ca.pem" ] && [ -s "$dir/class-ca.key" ] && return 0
  (
    umask 077
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 \
      -subj "/CN=SOAR lab class CA $(hostname -s 2>/dev/null || echo host) $(date -u +%Y%m%d%H%M%S)" \
      -addext basicConstraints=critical,CA:TRUE,pathlen:0 -addext keyUsage=critical,keyCertSign,cRLSign \
      -keyout "$dir/class-ca.key.new" -out "$dir/class-ca.pem.new" 2>/dev/null
    mv "$dir/class-ca.key.new" "$dir/class-ca.key"
    mv "$dir/class-ca.pem.new" "$dir/class-ca.pem"
  )
  chmod 600 "$dir/class-ca.key"
  chmod 644 "$dir/class-ca.pem"
}

# tls_address_cert DIR ADDRESS: ADDRESS's certificate (IP in its subjectAltName, 825 days, the CA's chain
# after it), made when missing or not signed by the CA in DIR.
tls_address_cert() {
  local dir=$1 address=$2 ext
  if [ -s "$dir/$address.pem" ] && [ -s "$dir/$address.key" ] &&
    openssl verify -CAfile "$dir/class-ca.pem" "$dir/$address.pem" >/dev/null 2>&1; then
    return 0
  fi
  ext=$(mktemp)
  printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:%s\n' "$address" >"$ext"
  (
    umask 077
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$address" \
      -keyout "$dir/$address.key.new" -out "$dir/$address.csr" 2>/dev/null
    openssl x509 -req -in "$dir/$address.csr" -CA "$dir/class-ca.pem" -CAkey "$dir/class-ca.key" \
      -CAcreateserial -days 825 -extfile "$ext" -out "$dir/$address.pem.new" 2>/dev/null
    mv "$dir/$address.key.new" "$dir/$address.key"
    mv "$dir/$address.pem.new" "$dir/$address.pem"
  )
  rm -f "$ext" "$dir/$address.csr"
  chmod 600 "$dir/$address.key"
}

# The folder of the class CA and the addresses' certificates: with the host's lab settings.
tls_dir() { echo "$LAB_DIR/labs/tls"; }

# tls_lab_env: on a classroom address (LAB_SCHEME=https), CONSOLE_TLS_CERT and CONSOLE_TLS_KEY exported
# for compose.yaml: the trainer's own (LAB_TLS_CERT, LAB_TLS_KEY: files, kept in the folder as the
# address's, used from then on) or the address's, made by the class CA. Otherwise both empty.
tls_lab_env() {
  local dir
  CONSOLE_TLS_CERT="" CONSOLE_TLS_KEY=""
  if [ "${LAB_SCHEME:-http}" = https ]; then
    dir=$(tls_dir)
    tls_class_ca "$dir"
    if [ -n "${LAB_TLS_CERT:-}" ] || [ -n "${LAB_TLS_KEY:-}" ]; then
      if ! [ -r "${LAB_TLS_CERT:-}" ] || ! [ -r "${LAB_TLS_KEY:-}" ]; then
        die "LAB_TLS_CERT and LAB_TLS_KEY go together: the trainer's certificate (PEM, its chain after it) and its key, readable files"
      fi
      (umask 077 && cp "$LAB_TLS_CERT" "$dir/$LAB_BIND.pem" && cp "$LAB_TLS_KEY" "$dir/$LAB_BIND.key")
      : >"$dir/$LAB_BIND.own"
    fi
    [ -f "$dir/$LAB_BIND.own" ] || tls_address_cert "$dir" "$LAB_BIND"
    CONSOLE_TLS_CERT=$(cat "$dir/$LAB_BIND.pem") CONSOLE_TLS_KEY=$(cat "$dir/$LAB_BIND.key")
  fi
  export CONSOLE_TLS_CERT CONSOLE_TLS_KEY
}

# tls_roster_lines ADDRESS: what a trainee needs to trust ADDRESS's certificate (the roster's and the board's
# head): the class CA, or nothing when it is the trainer's own (LAB_TLS_CERT), which the class CA did not
# sign: its fingerprint then, to compare with the browser's.
tls_roster_lines() {
  local dir
  dir=$(tls_dir)
  if [ -f "$dir/$1.own" ] && [ -s "$dir/$1.pem" ]; then
    echo "# Certificate: the trainer's own for $1 (LAB_TLS_CERT; nothing to trust where browsers trust its issuer), SHA-256 $(tls_fingerprint "$dir/$1.pem")"
    return 0
  fi
  [ -s "$dir/class-ca.pem" ] || return 0
  echo "# Class CA (trust it once per browser: docs/trainee-guide.md): $dir/class-ca.pem, SHA-256 $(tls_fingerprint "$dir/class-ca.pem")"
}

# tls_fingerprint FILE: the certificate's SHA-256 fingerprint, as browsers show it (AA:BB:...).
tls_fingerprint() { openssl x509 -in "$1" -noout -fingerprint -sha256 | sed 's/^.*=//'; }

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  [ $# -eq 2 ] || {
    echo "usage: bash docker/lab/tls.sh DIR ADDRESS" >&2
    exit 2
  }
  tls_class_ca "$1"
  tls_address_cert "$1" "$2"
  tls_fingerprint "$1/class-ca.pem"
fi
