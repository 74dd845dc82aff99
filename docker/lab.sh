#!/usr/bin/env bash
# The lab's commands, called by make. Each takes LAB=<name> (default: the single lab of this machine).
#
#   up | down | reset | solution     start (an exercise unless LAB_MODE=demo) | save, then remove | a clean
#                                    exercise | publish the reference workflows
#   save | restore | stop | start     the workflows to saved/ | back from a save (FROM=) | keep all, stopped |
#                                    started again
#   status                           this checkout's version, and each lab's with what make up does with it
#   check STAGE [ARGS] | acceptance [ARGS]    the stage checker | the matrix, inside the lab (the make
#                                             targets decide the developers' ways: TARGET=n8n|reference)
#   starter STAGE                    a workflow complete up to the stage before STAGE, added unpublished
#   health | state | logs [SVC] | api METHOD PATH [JSON]  the mock API through its container; the logs
#   class-up | class-down | class-save | class-stop | class-start | class-restore | class-report |
#   class-board | roster                                  a class from ROSTER=<file>
#   bundle                                                every image in one archive (LAB_BUNDLE)
#
# The parts, one concern each, are in docker/lab/: common, net (IPv4 arithmetic), settings, preflight
# (refusals), compose, tools (what runs inside the lab), lifecycle, keep (save, restore, stop, start), update
# (a lab of an earlier version brought to this one; make status), class,
# board (the live class board and the class report), bundle, tls (the classroom's certificates).
#
# The globals a part sets that another part reads are all the parts share; test/lint/lab-globals.test.ts
# holds this list to the scripts.
# Shared state, by the part that sets it:
#   lab.sh: ROOT
#   settings.generated.sh: DEFAULT_APPROVAL_TIMEOUT_SECONDS DEFAULT_LAB_CPUS DEFAULT_LAB_MODE DEFAULT_LAB_STARTERS
#   settings.generated.sh: LAB_IMAGE LAB_VERSION LAB_NAME_PATTERN LAB_NAME_WORDS
#   settings.generated.sh: REPORT_FILE HISTORY_FILE RUNS_FILE HISTORY_KEPT
#   stages.generated.sh: LAB_STAGES
#   settings.sh: LAB PROJECT LAB_DIR ENV_FILE REPORTS LAB_ARG EDITOR_URL CONSOLE_URL
#   settings.sh: LAB_MODE LAB_BIND LAB_SCHEME LAB_EDITOR_PORT LAB_CONSOLE_PORT APPROVAL_TIMEOUT_SECONDS
#   preflight.sh: LAB_EDITOR_PORT LAB_CONSOLE_PORT
#   tools.sh: N8N_CLI REPORTS_IMAGE
#   update.sh: LAB LAB_SKIP_BUILD MOVED_SAVE UPDATED
#   class.sh: CLASS LAB LAB_SKIP_BUILD
#   bundle.sh: LAB_BUNDLE
#   board.sh: LAB_BIND LAB_SCHEME
#   tls.sh: CONSOLE_TLS_CERT CONSOLE_TLS_KEY
#
# LAB_TRACE=1 traces every command, here and in the lab.sh run for each lab of a class (common.sh).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=lab/common.sh
. "$ROOT/docker/lab/common.sh"
lab_trace
# shellcheck source=lab/net.sh
. "$ROOT/docker/lab/net.sh"
# shellcheck source=lab/settings.sh
. "$ROOT/docker/lab/settings.sh"
# shellcheck source=lab/preflight.sh
. "$ROOT/docker/lab/preflight.sh"
# shellcheck source=lab/compose.sh
. "$ROOT/docker/lab/compose.sh"
# shellcheck source=lab/tls.sh
. "$ROOT/docker/lab/tls.sh"
# shellcheck source=lab/tools.sh
. "$ROOT/docker/lab/tools.sh"
# shellcheck source=lab/lifecycle.sh
. "$ROOT/docker/lab/lifecycle.sh"
# shellcheck source=lab/keep.sh
. "$ROOT/docker/lab/keep.sh"
# shellcheck source=lab/update.sh
. "$ROOT/docker/lab/update.sh"
# shellcheck source=lab/class.sh
. "$ROOT/docker/lab/class.sh"
# shellcheck source=lab/board.sh
. "$ROOT/docker/lab/board.sh"
# shellcheck source=lab/bundle.sh
. "$ROOT/docker/lab/bundle.sh"

main() {
  local cmd=${1:-}
  [ $# -gt 0 ] && shift
  lab_identity
  case "$cmd" in
    up) cmd_up ;;
    down) cmd_down ;;
    reset) cmd_reset ;;
    solution) cmd_solution ;;
    prepare) cmd_prepare ;;
    create) cmd_create ;;
    save) cmd_save ;;
    restore) cmd_restore ;;
    stop) cmd_stop ;;
    start) cmd_start ;;
    status) cmd_status ;;
    status-line) need_docker && status_line ;;
    health) need_running_lab && api GET /health ;;
    state) need_running_lab && api GET /state ;;
    logs) need_docker && compose logs -f --tail=100 "$@" ;;
    api) need_running_lab && api "$@" ;;
    acceptance) cmd_acceptance_lab "$@" ;;
    check) cmd_check "$@" ;;
    starter) cmd_starter "$@" ;;
    fetch-report) need_running_lab && copy_report "$REPORT_FILE" ;;
    where-short) where_short ;;
    sshd-settings) sshd_settings ;;
    class-up) cmd_class_up ;;
    class-down) cmd_class_each down ;;
    class-save) cmd_class_each save ;;
    class-stop) cmd_class_each stop ;;
    class-start) cmd_class_each start ;;
    class-restore) cmd_class_each restore ;;
    class-report) cmd_class_report_from_labs ;;
    class-board) cmd_class_board ;;
    roster) need_docker && cmd_roster ;;
    bundle) cmd_bundle ;;
    *) die "usage: docker/lab.sh up|down|reset|solution|save|restore|stop|start|status|check STAGE|starter STAGE|acceptance|health|state|logs [service]|api METHOD PATH [JSON]|class-up|class-down|class-save|class-stop|class-start|class-restore|class-report|class-board|roster|bundle" ;;
  esac
}

main "$@"
