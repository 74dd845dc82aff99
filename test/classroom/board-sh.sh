#!/usr/bin/env bash
# Runs one function of docker/lab/board.sh with the parts of docker/lab.sh it uses, for
# test/classroom/board-script.test.ts (which puts a fake `docker` first on PATH):
#   ROSTER=<file> bash test/classroom/board-sh.sh FUNCTION [ARGS...]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../../docker/lab/common.sh
. "$ROOT/docker/lab/common.sh"
# shellcheck source=../../docker/lab/settings.sh
. "$ROOT/docker/lab/settings.sh"
# shellcheck source=../../docker/lab/compose.sh
. "$ROOT/docker/lab/compose.sh"
# shellcheck source=../../docker/lab/tls.sh
. "$ROOT/docker/lab/tls.sh"
# shellcheck source=../../docker/lab/class.sh
. "$ROOT/docker/lab/class.sh"
# shellcheck source=../../docker/lab/board.sh
. "$ROOT/docker/lab/board.sh"

# The test's own checkout folder: what the functions write (reports/) goes there, not into this checkout.
ROOT=${BOARD_SH_ROOT:-$ROOT}
[ -z "${ROSTER:-}" ] || class_names
"$@"
