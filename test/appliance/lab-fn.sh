#!/usr/bin/env bash
# Runs one function of docker/lab.sh's parts, for the lab scripts' unit tests: test/appliance/fake-lab.ts
# copies it to docker/lab-fn.sh of a checkout's copy (its folder's parent is that copy's root).
#   LAB=<name> bash docker/lab-fn.sh FUNCTION [ARGS...]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=../../docker/lab/common.sh
. "$ROOT/docker/lab/common.sh"
# shellcheck source=../../docker/lab/net.sh
. "$ROOT/docker/lab/net.sh"
# shellcheck source=../../docker/lab/settings.sh
. "$ROOT/docker/lab/settings.sh"
# shellcheck source=../../docker/lab/preflight.sh
. "$ROOT/docker/lab/preflight.sh"
# shellcheck source=../../docker/lab/compose.sh
. "$ROOT/docker/lab/compose.sh"
# shellcheck source=../../docker/lab/tools.sh
. "$ROOT/docker/lab/tools.sh"
# shellcheck source=../../docker/lab/lifecycle.sh
. "$ROOT/docker/lab/lifecycle.sh"
# shellcheck source=../../docker/lab/keep.sh
. "$ROOT/docker/lab/keep.sh"
# shellcheck source=../../docker/lab/class.sh
. "$ROOT/docker/lab/class.sh"
# shellcheck source=../../docker/lab/board.sh
. "$ROOT/docker/lab/board.sh"

lab_identity
"$@"
