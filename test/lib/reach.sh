# shellcheck shell=bash
# Whether a probe reached its target, counting ANY answer as reached (sourced by test/engine/run.sh and
# test/lab/exercise.sh). A refusal that a probe could mistake for "not reached" (a console's 421 to a Host
# name not its own, a mock API's 403, a connection closed as it is accepted, a TLS port that waits for a
# hello) is reached all the same: the packet arrived. Only silence (no handshake within 3 s), "no route"
# and "no such name" are "not reached".
#   REACH           node -e "$REACH" URL [IFACE]: opens TCP to URL's host and port (an IPv6 link-local
#                   host through interface IFACE, its zone); on connect sends a plain
#                   GET and reads the first line for 2 s. Prints one line and exits 0 "reached: ..." or
#                   1 "no answer: ..."; any other exit status is the probe's own failure (a container
#                   gone, node missing), which refute_reach counts as a failure, never as a wall.
#   reach_in CONTAINER URL [IFACE]  the probe inside a running container (docker exec)
#   closed_unanswered CONTAINER URL  connected, then closed with no status line (a refused client)
#   closed_no_status COMMAND...  a curl connected and closed with no status line (its exit 52 or 56)
#   refute_reach NAME COMMAND...   passes when COMMAND (a REACH probe) exits 1, its answer printed
#   control_reach NAME COMMAND...  passes when it exits 0 (the same probe, the wall removed), likewise
#   needs: pass and fail (test/lib/engine.sh)

REACH='const net=require("net"),u=new URL(process.argv[1]);
const port=Number(u.port||(u.protocol==="https:"?443:80)),host=u.hostname.replace(/^\[|\]$/g,"")+(process.argv[2]?"%"+process.argv[2]:"");
const out=(code,line)=>{console.log(line.replace(/[\r\n]+/g," ").slice(0,160));process.exit(code)};
const silent=new Set(["ETIMEDOUT","EHOSTUNREACH","ENETUNREACH","ENOTFOUND","EAI_AGAIN","EADDRNOTAVAIL"]);
const s=net.connect({host,port});let connected=false,got="";
const t=setTimeout(()=>connected?out(0,"reached: connected, no answer to a GET in 2 s"):out(1,"no answer: nothing in 3 s (no handshake)"),3000);
s.on("connect",()=>{connected=true;clearTimeout(t);setTimeout(()=>out(0,"reached: connected, no answer to a GET in 2 s"),2000);
  s.write("GET "+(u.pathname+u.search||"/")+" HTTP/1.0\r\nHost: "+u.host+"\r\n\r\n")});
s.on("data",d=>{got+=d.toString("latin1");const i=got.indexOf("\n");if(i>=0)out(0,"reached: answered "+JSON.stringify(got.slice(0,i).trim()))});
s.on("end",()=>out(0,got?"reached: answered "+JSON.stringify(got.trim()):"reached: connected, closed without a word"));
s.on("error",e=>silent.has(e.code)?out(1,"no answer: "+e.code):out(0,"reached: "+(connected?"connected, then ":"")+e.code));'

reach_in() { timeout 20 docker exec "$1" node -e "$REACH" "$2" "${@:3}"; }

# closed_unanswered CONTAINER URL: the connection is made and closed without a status line (a refused
# client of the console's: it reaches the port, and is answered nothing).
closed_unanswered() {
  local said
  said=$(reach_in "$1" "$2" || true)
  echo "$said"
  grep -q '^reached: connected' <<<"$said" && ! grep -q 'answered' <<<"$said"
}

# closed_no_status COMMAND...: COMMAND, a curl to a listener, connected and was closed with no status
# line: curl's exit 52 (an empty reply) or 56 (a reset after connect), printed. A status line (0, or 22
# with -f), a refused connection (7: nothing listens) and silence (28) all fail it.
closed_no_status() {
  local rc=0
  "$@" || rc=$?
  echo "curl exit $rc"
  [ "$rc" = 52 ] || [ "$rc" = 56 ]
}

refute_reach() {
  local name=$1 out rc=0
  shift
  out=$("$@" 2>&1) || rc=$?
  case "$rc" in
    1) pass "$name ($(tail -n 1 <<<"$out" | cut -c1-100))" ;;
    0) fail "$name" "$(tail -n 1 <<<"$out")" ;;
    *) fail "$name" "the probe itself failed (exit $rc): $(tail -n 2 <<<"$out" | tr '\n' ' ' | cut -c1-160)" ;;
  esac
}

control_reach() {
  local name=$1 out rc=0
  shift
  out=$("$@" 2>&1) || rc=$?
  if [ "$rc" = 0 ]; then
    pass "$name ($(tail -n 1 <<<"$out" | cut -c1-100))"
  else
    fail "$name" "exit $rc: $(tail -n 2 <<<"$out" | tr '\n' ' ' | cut -c1-160)"
  fi
}
