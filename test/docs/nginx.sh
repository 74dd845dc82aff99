#!/usr/bin/env bash
# Makes sure Debian's nginx is here for the TLS proxy example's test (test/docs/tls-proxy.test.ts runs
# `nginx -t` on deploy/tls/nginx.conf.example and a sign-in through it): installs nginx-light when it is
# missing (root) and says so; it never starts nginx's service. Without nginx that test checks the file's
# rules only.
set -euo pipefail

if command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; then exit 0; fi
[ "$(id -u)" = 0 ] || { echo "tls-example: nginx is missing (apt-get install nginx-light)" >&2; exit 1; }
echo "tls-example: installing Debian's nginx-light" >&2
# policy-rc.d 101: the package's service is not started (nothing listens on port 80 afterwards).
policy=/usr/sbin/policy-rc.d
made=""
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && made=1
fi
install() { DEBIAN_FRONTEND=noninteractive apt-get install -y nginx-light >/dev/null 2>&1; }
install || { apt-get update >/dev/null && install; } || status=$?
[ -z "$made" ] || rm -f "$policy"
exit "${status:-0}"
