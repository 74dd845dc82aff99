#!/usr/bin/env bash
# make test-console-n8n: the console against the real, pinned n8n (test/e2e/run.sh starts the mock API
# and n8n on loopback and keeps them up; the console is started here). Needs `npm run build` and the n8n
# install cache (test/pinned-n8n/install.sh fills it the first time). Stops only what it started.
set -euo pipefail
cd "$(dirname "$0")/../.."
LOG=$(mktemp /tmp/soar-console-n8n.XXXXXX)
E2E_PID=""
CONSOLE_PID=""
cleanup() {
  if [ -n "$CONSOLE_PID" ]; then kill -TERM "$CONSOLE_PID" 2>/dev/null || true; fi
  if [ -n "$E2E_PID" ]; then
    kill -TERM "$E2E_PID" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$E2E_PID" 2>/dev/null || break; sleep 0.2; done
    # Stopped by a signal, test/e2e/run.sh keeps its temp folder "for the logs": ours to remove.
    kept=$(sed -nE 's/.*logs kept in (\/tmp\/soar-n8n-e2e\.[A-Za-z0-9]+).*/\1/p' "$LOG")
    [ -n "$kept" ] && rm -rf "$kept"
  fi
  rm -f "$LOG"
}
trap cleanup EXIT
E2E_SKIP_RUNNER=1 APPROVAL_TIMEOUT_SECONDS=120 bash test/e2e/run.sh >"$LOG" 2>&1 &
E2E_PID=$!
for _ in $(seq 1 600); do
  grep -q 'E2E_SKIP_RUNNER=1: mock API' "$LOG" && break
  kill -0 "$E2E_PID" 2>/dev/null || { cat "$LOG" >&2; echo "test-console-n8n: test/e2e/run.sh exited" >&2; exit 1; }
  sleep 0.5
done
line=$(grep 'E2E_SKIP_RUNNER=1: mock API' "$LOG") || { cat "$LOG" >&2; exit 1; }
API_URL=$(sed -E 's/.*mock API (http[^,]+),.*/\1/' <<<"$line")
N8N_URL=$(sed -E 's/.*n8n (http[^;]+);.*/\1/' <<<"$line")
echo "test-console-n8n: mock API $API_URL, n8n $N8N_URL"
CONSOLE_LOG=$(mktemp /tmp/soar-console-n8n-console.XXXXXX)
MOCK_API_URL=$API_URL N8N_URL=$N8N_URL CONSOLE_PORT=0 CONSOLE_POLL_MS=250 node dist/app/console/main.js >"$CONSOLE_LOG" 2>&1 &
CONSOLE_PID=$!
for _ in $(seq 1 100); do grep -q 'console listening on' "$CONSOLE_LOG" && break; sleep 0.1; done
CONSOLE_URL=$(sed -nE 's/^console listening on (http:[^ ]+).*/\1/p' "$CONSOLE_LOG")
rm -f "$CONSOLE_LOG"
[ -n "$CONSOLE_URL" ] || { echo "test-console-n8n: the console did not start" >&2; exit 1; }
node test/console/real-n8n.mjs "$CONSOLE_URL" "$API_URL" "${ROUNDS:-5}"
