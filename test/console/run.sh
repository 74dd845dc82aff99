#!/usr/bin/env bash
# make test-console: the lab console in a real browser. Needs Debian's chromium (playwright-core cannot
# download its own browser here); installs it with apt-get when missing and allowed (root).
set -euo pipefail
cd "$(dirname "$0")/../.."
CHROMIUM=${CHROMIUM:-$(command -v chromium || true)}
if [[ -z "$CHROMIUM" ]]; then
  if [[ $(id -u) -ne 0 ]]; then
    echo "test-console: chromium is missing; install it with: sudo apt-get install -y chromium" >&2
    exit 1
  fi
  echo "test-console: installing Debian's chromium (apt-get install -y chromium; a few minutes)..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  CHROMIUM=$(command -v chromium)
  echo "test-console: $("$CHROMIUM" --version 2>/dev/null || echo chromium) installed"
fi
export CHROMIUM
exec npx vitest run --config test/console/vitest.browser.config.ts "$@"
