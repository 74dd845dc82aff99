#!/usr/bin/env bash
# Runs one function of docker/lab.sh's parts, for the lab scripts' unit tests: test/appliance/fake-lab.ts
# copies it to docker/lab-fn.sh of a checkout's copy (its folder's parent is that copy's root).
#   LAB=<name> bash docker/lab-fn.sh FUNCTION [ARGS...]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# The parts docker/lab.sh sources, in its order, read from its `. "$ROOT/docker/lab/<part>.sh"` lines: a
# part it gains is sourced here too (test/appliance/lab-fn.test.ts).
# shellcheck disable=SC2016 # a sed pattern: its $ are the pattern's, never the shell's
lab_fn_parts=$(sed -n 's|^\. "\$ROOT/docker/lab/\([a-z0-9-]*\.sh\)"$|\1|p' docker/lab.sh)
[ -n "$lab_fn_parts" ] || { echo "lab-fn.sh: docker/lab.sh sources no part of docker/lab/: its '. \"\$ROOT/docker/lab/<part>.sh\"' lines are not there" >&2; exit 1; }
for part in $lab_fn_parts; do
  # shellcheck source=/dev/null # each part is checked through docker/lab.sh, which names it
  . "$ROOT/docker/lab/$part"
done

lab_identity
"$@"
