# shellcheck shell=bash
# What the suites on the host's pinned n8n share (test/e2e/run.sh, test/n8n/run.sh, test/editor/run.sh):
# a free loopback port, the mock API's address as it prints it, and the ok/FAIL counters with two tests on
# a file. SYSTEM_NODE is the host's node (n8n's own Node 24 is put first on PATH only for n8n).

# free_port: a loopback TCP port nothing listens on now.
free_port() {
  "$SYSTEM_NODE" -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# mock_api_address LOG PID: the address the mock API started as PID prints into LOG ("listening on ..."),
# waited for up to 15 s; exit 1 without it, or when PID has exited.
mock_api_address() {
  local address
  for _ in $(seq 1 150); do
    address="$(grep -o -m1 'listening on http://[0-9.:]*' "$1" 2>/dev/null | sed 's/listening on //' || true)"
    [ -n "$address" ] && { echo "$address"; return 0; }
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

passed=0 failed=0
check() { # check NAME COMMAND...: passes when COMMAND succeeds
  local name=$1; shift
  if "$@"; then passed=$((passed + 1)); echo "ok   $name"; else failed=$((failed + 1)); echo "FAIL $name"; fi
}
has() { grep -qE -- "$2" "$1"; }       # has FILE REGEX
lines() { [ "$(wc -l <"$1")" -eq "$2" ]; } # lines FILE N: FILE has N lines
