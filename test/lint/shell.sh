#!/usr/bin/env bash
# Runs shellcheck over every shell file of the repository (make test, make lint-shell): no finding at any
# severity; a finding that is right to keep is disabled on its line with the reason. A file that is only
# sourced (its first line `# shellcheck shell=bash`, no #!) is checked through the scripts that source it,
# with their variables and functions in view (.shellcheckrc follows sources), and on its own; each must be
# sourced by one.
# Installs Debian's shellcheck when it is missing (root) and says so.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

if ! command -v shellcheck >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] || { echo "lint-shell: shellcheck is missing (apt-get install shellcheck)" >&2; exit 1; }
  echo "lint-shell: installing Debian's shellcheck" >&2
  apt-get install -y shellcheck >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y shellcheck >/dev/null; }
fi

# Tracked files ending in .sh, and those whose first line names a POSIX shell or bash.
files=()
parts=()
while IFS= read -r f; do
  [ -f "$f" ] || continue
  first=$(head -n 1 "$f")
  if [[ $first == '# shellcheck shell='* ]]; then
    parts+=("$f")
  elif [[ $first =~ ^\#!.*(bash|/sh)( |$) ]]; then
    files+=("$f")
  elif [[ $f == *.sh ]]; then
    echo "lint-shell: $f has neither #! nor '# shellcheck shell=bash' on its first line" >&2
    exit 1
  fi
done < <(git ls-files --cached --others --exclude-standard)
# Every sourced part is named by a `# shellcheck source=` line of a checked script.
for f in "${parts[@]}"; do
  grep -q "^ *# shellcheck source=.*$(basename "$f")\$" "${files[@]}" "${parts[@]}" ||
    { echo "lint-shell: $f is sourced by no checked script (add a '# shellcheck source=' line where it is sourced)" >&2; exit 1; }
done
shellcheck "${files[@]}"
# A sourced file's findings are reported only when it is named itself: each part again, on its own,
# without the two findings about variables it shares with the script that sources it (assigned there and
# read here, or assigned here for it: SC2154, SC2034).
[ "${#parts[@]}" -eq 0 ] || shellcheck -e SC2034,SC2154 "${parts[@]}"
echo "lint-shell: ${#files[@]} scripts and the ${#parts[@]} files they source, no finding ($(shellcheck --version | sed -n 's/^version: //p'))"
