# shellcheck shell=bash
# Messages and small helpers every lab command uses. Sourced by docker/lab.sh; defines functions only.

die() {
  echo "lab: $*" >&2
  exit 1
}
say() { echo "lab: $*"; }

# die_with OUTPUT MESSAGE: die's one line, then the whole OUTPUT of the tool that failed below it, so that
# the line a trainer reads first stays first and nothing the tool said is lost (tool_output).
die_with() {
  local out=$1
  shift
  echo "lab: $*" >&2
  tool_output "$out" "$*"
  exit 1
}

# tool_output OUTPUT [MESSAGE]: a failed tool's whole output on stderr, each line indented by four spaces;
# nothing when it is one line that MESSAGE, the line above it, quotes already.
tool_output() {
  local lines
  lines=$(grep -c '[^[:space:]]' <<<"$1" || true)
  [ "$lines" != 0 ] || return 0
  if [ "$lines" = 1 ] && [ -n "${2:-}" ]; then
    case "$2" in *"$(grep -m 1 '[^[:space:]]' <<<"$1" | sed 's/^[[:space:]]*//')"*) return 0 ;; esac
  fi
  sed -e '/^[[:space:]]*$/d' -e 's/^/    /' <<<"$1" >&2
}

# A lab function that failed, its output captured (2>&1) by the command that called it: first_said OUTPUT
# is its first `lab: ` line without the prefix (else OUTPUT's last line), tool_lines OUTPUT the tool's
# output it printed below that line, as the tool wrote it (for the caller's own die_with).
first_said() {
  local line
  line=$(grep -m 1 '^lab: ' <<<"$1" || true)
  if [ -n "$line" ]; then echo "${line#lab: }"; else echo "${1##*$'\n'}"; fi
}
tool_lines() { sed -n 's/^    //p' <<<"$1"; }

# LAB_TRACE=1: every command traced (set -x), each line naming its file, line and function, as bats-core
# and dokku do. LAB_TRACE comes from the environment (make passes its command line's on), so the lab.sh
# run for each lab of a class traces too. The trace goes to the stderr the first lab.sh was given, through
# a descriptor of its own that its children inherit (LAB_TRACE_FD), so that no output captured with 2>&1
# (a tool's, read for its last line) ever holds a trace line.
lab_trace() {
  [ "${LAB_TRACE:-}" = 1 ] || return 0
  if [[ ! ${LAB_TRACE_FD:-} =~ ^[0-9]+$ ]] || ! { true >&"$LAB_TRACE_FD"; } 2>/dev/null; then
    exec {LAB_TRACE_FD}>&2
    export LAB_TRACE_FD
  fi
  BASH_XTRACEFD=$LAB_TRACE_FD
  # shellcheck disable=SC2016 # expanded at each traced line
  PS4='+ ${BASH_SOURCE[0]#"$ROOT"/}:${LINENO}${FUNCNAME[0]:+ ${FUNCNAME[0]}}: '
  set -x
}

random_hex() { od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n'; }

# in_range VALUE MIN MAX: VALUE is a whole number from MIN to MAX.
in_range() { [[ $1 =~ ^[0-9]{1,9}$ ]] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }

# Seconds since an earlier $SECONDS, for the figures the commands print.
since() { echo "$((SECONDS - $1))"; }
