# shellcheck shell=bash
# A class: one lab per trainee named in a roster file (one name a line; `#` starts a comment). Each lab is
# exactly what `make up LAB=<name>` makes; the class commands run the lab commands once per name.

# roster_names FILE [accounts]: the names, one a line; refuses an invalid or repeated name with its line
# number. With `accounts` (make class-up, make roster: each name becomes a host account's sshd Match
# block), also a name that is a system account of this machine or the trainer's own login.
roster_names() {
  local file=$1 line name n=0 seen=" " why
  [ -n "$file" ] || die "ROSTER is needed: make class-up ROSTER=class.txt (one trainee name a line)"
  [ -f "$file" ] || die "ROSTER=$file: no such file"
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    name=${line%%#*}
    name=$(echo "$name" | tr -d '[:space:]')
    [ -n "$name" ] || continue
    valid_lab_name "$name" ||
      die "$file line $n: '$name' is not a lab name ($LAB_NAME_WORDS)"
    case "$seen" in *" $name "*) die "$file line $n: '$name' is named twice" ;; esac
    seen="$seen$name "
    if [ "${2:-}" = accounts ]; then
      why=$(not_a_trainee_account "$name")
      [ -z "$why" ] ||
        die "$file line $n: '$name' $why: make roster would write sshd settings for it; give the trainee another name"
    fi
    echo "$name"
  done <"$file"
}

# Why NAME cannot be a trainee's host account, or nothing: the trainer's own login (also the one sudo
# was run from), or a system account (uid below 1000 or from 60000, Debian's system ranges: root,
# daemon, www-data, nobody...).
not_a_trainee_account() {
  local me="" entry="" uid=""
  ! command -v id >/dev/null 2>&1 || me=$(id -un 2>/dev/null || true)
  if [ "$1" = "$me" ] || [ "$1" = "${SUDO_USER:-}" ]; then
    echo "is your own login on this machine"
    return 0
  fi
  # The account database as the system sees it (getent: LDAP and the like too), else /etc/passwd.
  ! command -v getent >/dev/null 2>&1 || entry=$(getent passwd "$1" 2>/dev/null || true)
  [ -n "$entry" ] || [ ! -r /etc/passwd ] || entry=$(grep -m 1 "^$1:" /etc/passwd 2>/dev/null || true)
  [ -z "$entry" ] || IFS=: read -r _ _ uid _ <<<"$entry"
  if [[ $uid =~ ^[0-9]+$ ]] && { [ "$uid" -lt 1000 ] || [ "$uid" -ge 60000 ]; }; then
    echo "is a system account of this machine (uid $uid)"
  fi
  return 0
}

class_names() {
  CLASS=$(roster_names "${ROSTER:-}" "${1:-}") || exit 1
  [ -n "$CLASS" ] || die "ROSTER=$ROSTER names nobody"
}

# lab_sh NAME COMMAND...: the lab command for one trainee's lab, in its own process (its own settings).
lab_sh() {
  local name=$1
  shift
  LAB=$name bash "$ROOT/docker/lab.sh" "$@"
}

lab_moving() { grep -q '^LAB_MOVE_SAVE=.' "$LAB_DIR/labs/$1.env" 2>/dev/null; }
lab_running() { docker ps -q --filter "label=com.docker.compose.project=soar-lab-$1" | grep -q .; }

# Adds the missing labs and changes none that run but those of an earlier version, updated (docker/lab/
# update.sh): all new ones are prepared first (names, slots, memory, secrets); the labs that were there are
# waited for (and updated) one after another, the first building the lab's image; then the new ones are
# started and set up side by side, CLASS_STARTING_AT_ONCE at a time (class_up_new).
cmd_class_up() {
  local start=$SECONDS name new="" out skip
  class_names accounts
  need_docker
  # A lab whose move was cut short is not made here: its own make up finishes the move first (docker/lab/
  # update.sh), before anything new is made beside its save.
  for name in $CLASS; do lab_running "$name" || lab_moving "$name" || new="$new $name"; done
  need_memory $(($(running_labs) + $(echo "$new" | wc -w)))
  if [ -z "$new" ]; then
    say "every lab of the class runs already; nothing changed"
  else
    say "starting$new"
    for name in $new; do lab_sh "$name" prepare || exit 1; done
  fi
  # Each lab there before set up (one of an earlier version updated: its one line shown), one after
  # another; the lab's image is built (or found built) by the first only: a new one, if it comes first, is
  # only started then (its image built), and set up with the other new ones.
  skip=""
  for name in $CLASS; do
    case " $new " in
      *" $name "*)
        [ -z "$skip" ] || continue
        lab_sh "$name" create >/dev/null || die "lab $name did not start (make logs LAB=$name)"
        ;;
      *)
        out=$(LAB_SKIP_BUILD=$skip lab_sh "$name" up) || die "lab $name did not come up (make logs LAB=$name)"
        grep -E '^lab: (updated|moved) ' <<<"$out" || true
        ;;
    esac
    skip=1
  done
  # shellcheck disable=SC2086 # one name a word
  class_up_new $new
  cmd_roster
  say "the class is up ($(echo "$CLASS" | wc -w) labs) after $(since "$start") s"
}

# How many new labs of a class start at once: enough to keep two cores busy while each waits on its n8n
# and on Docker, few enough that no n8n starting misses its own deadlines (its database pings, its task
# runner's grant): with all 16 of a class starting together on 2 cores, one n8n gave up and was restarted.
CLASS_STARTING_AT_ONCE=4

# class_up_new NAMES...: each new lab's `make up` (started, waited for and set up; its image built
# already), CLASS_STARTING_AT_ONCE side by side, each one's lines kept in a file; once all have ended,
# those that did not come up named, with their last lines. They hold no one's work yet.
class_up_new() {
  local dir name failed=""
  [ $# -gt 0 ] || return 0
  dir=$(mktemp -d)
  for name in "$@"; do
    while [ "$(jobs -rp | wc -l)" -ge "$CLASS_STARTING_AT_ONCE" ]; do sleep 1; done
    # Ctrl-C stops it too (a shell without job control starts its background jobs deaf to it).
    (
      trap - INT
      rc=0
      LAB_SKIP_BUILD=1 lab_sh "$name" up >"$dir/$name.out" 2>&1 || rc=$?
      echo "$rc" >"$dir/$name.rc"
    ) &
  done
  wait
  for name in "$@"; do
    [ "$(cat "$dir/$name.rc" 2>/dev/null)" = 0 ] && continue
    failed="$failed $name"
    tail -n 3 "$dir/$name.out" | sed "s/^/  $name: /" >&2
  done
  rm -rf "$dir"
  [ -z "$failed" ] || die "lab(s)$failed did not come up (make logs LAB=<name>)"
}

# class-down, class-save, class-stop, class-start, class-restore: the lab command for each trainee in turn;
# the first that fails stops the rest (class-down: a lab whose save failed, and those after it, stay).
cmd_class_each() {
  local name
  [ "$1" != down ] || refuse_force
  class_names
  for name in $CLASS; do lab_sh "$name" "$1" || die "stopped at lab $name; the labs after it were not touched"; done
}

# The roster a trainer hands out, written to labs/class-roster.txt (private: it holds the logins).
cmd_roster() {
  local name address file=$LAB_DIR/labs/class-roster.txt
  class_names accounts
  mkdir -p "$LAB_DIR/labs"
  # Private whatever the caller's umask, also a file an older roster left readable.
  (
    umask 077
    for name in $CLASS; do lab_sh "$name" where-short || echo "$name: not running"; done >"$file.labs"
    # Over TLS (a classroom address): the class CA to trust first, with its fingerprint.
    address=$(grep -o -m 1 'https://[0-9.]*' "$file.labs" | sed 's|https://||' || true)
    { if [ -n "$address" ]; then tls_roster_lines "$address"; fi; cat "$file.labs"; } >"$file"
    rm -f "$file.labs"
    chmod 600 "$file"
    mkdir -p "$LAB_DIR/labs/sshd"
    for name in $CLASS; do
      if lab_sh "$name" sshd-settings >"$LAB_DIR/labs/sshd/$name.conf" 2>/dev/null; then
        chmod 600 "$LAB_DIR/labs/sshd/$name.conf"
      else
        rm -f "$LAB_DIR/labs/sshd/$name.conf"
      fi
    done
  )
  cat "$file"
  say "the roster is in ${file#"$LAB_DIR"/}; each trainee's sshd settings (their own two tunnels only) in labs/sshd/<name>.conf"
}
