#!/usr/bin/env bash
# make test-console: the lab console in a real browser. Needs Debian's chromium (playwright-core cannot
# download its own browser here); installs it with apt-get when missing and allowed (root).
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../lib/chromium.sh
. test/lib/chromium.sh
ensure_chromium test-console
exec npx vitest run --config test/browser/vitest.browser.config.ts "$@"
