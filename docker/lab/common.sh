# shellcheck shell=bash
# Messages and small helpers every lab command uses. Sourced by docker/lab.sh; defines functions only.

die() {
  echo "lab: $*" >&2
  exit 1
}
say() { echo "lab: $*"; }

random_hex() { od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n'; }

# in_range VALUE MIN MAX: VALUE is a whole number from MIN to MAX.
in_range() { [[ $1 =~ ^[0-9]{1,9}$ ]] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }

# Seconds since an earlier $SECONDS, for the figures the commands print.
since() { echo "$((SECONDS - $1))"; }
