#!/usr/bin/env bash
# `date` for the lab scripts' unit tests: FAKE_DATE (the save folders' stamp) when set, else the real one.
set -euo pipefail
if [ -n "${FAKE_DATE:-}" ] && [ "${1:-}" = -u ] && [ "${2:-}" = '+%Y-%m-%dT%H%M%SZ' ]; then
  echo "$FAKE_DATE"
else
  exec /bin/date "$@"
fi
