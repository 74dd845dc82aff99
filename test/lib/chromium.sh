# shellcheck shell=bash
# Debian's chromium for the suites that drive a real browser (playwright-core cannot download its own here):
# `ensure_chromium TAG` exports CHROMIUM, installing the package with apt-get when it is missing and this is
# root; otherwise one line saying how, and exit 2.
ensure_chromium() {
  CHROMIUM=${CHROMIUM:-$(command -v chromium || true)}
  if [ -z "$CHROMIUM" ]; then
    [ "$(id -u)" = 0 ] || { echo "$1: chromium is missing; install it with: sudo apt-get install -y chromium" >&2; exit 2; }
    echo "$1: installing Debian's chromium (apt-get install -y chromium; a few minutes)..."
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    CHROMIUM=$(command -v chromium)
    echo "$1: $("$CHROMIUM" --version 2>/dev/null || echo chromium) installed"
  fi
  export CHROMIUM
}
