# shellcheck shell=bash
# generated: do not edit. Written by `npx tsx app/lab-settings/generate-cli.ts` from app/lab-settings/settings.ts, the
# one declaration of a lab's settings; sourced by docker/lab/values.sh (the checks need common.sh's die).

# LAB_MODE: exercise: nothing published, the trainee builds; demo: the reference workflows published.
DEFAULT_LAB_MODE=exercise
# check_lab_mode VALUE [ACCOUNT]: exercise or demo, else dies.
check_lab_mode() {
  case "$1" in exercise | demo) ;; *) die "LAB_MODE=$1 is not a lab mode: ${2:-exercise or demo}" ;; esac
}

# APPROVAL_TIMEOUT_SECONDS: how long a run waits for an approval decision, in seconds, before it goes on without one.
DEFAULT_APPROVAL_TIMEOUT_SECONDS=60
# check_approval_timeout VALUE [MORE]: a whole number from 1 to 3600, else dies.
check_approval_timeout() {
  if [[ $1 =~ ^[0-9]{1,9}$ ]] && [ "$1" -ge 1 ] && [ "$1" -le 3600 ]; then return 0; fi
  die "APPROVAL_TIMEOUT_SECONDS=$1 is not a whole number of seconds from 1 to 3600${2:+ $2}"
}

# LAB_STARTERS: on: a trainee may add a starter (make starter, the console); off: refused.
DEFAULT_LAB_STARTERS=on
# check_lab_starters VALUE [MORE]: on or off, else dies.
check_lab_starters() {
  case "$1" in on | off) ;; *) die "LAB_STARTERS=$1 is not on or off${2:+ $2}" ;; esac
}

# LAB_CPUS: the processor cores n8n may use (0: no limit).
DEFAULT_LAB_CPUS=1
# check_lab_cpus VALUE [MORE]: a number of cores from 0 to 64, at most two decimals, else dies.
check_lab_cpus() {
  if [[ $1 =~ ^[0-9]{1,2}(\.[0-9]{1,2})?$ ]]; then
    local whole=${1%%.*} fraction=${1#*.}
    if [ "$whole" -lt 64 ] || { [ "$whole" -eq 64 ] && { [ "$1" = "$whole" ] || [[ $fraction =~ ^0+$ ]]; }; }; then return 0; fi
  fi
  die "LAB_CPUS=$1 is not a number of cores from 0 to 64 with at most two decimals (0: no limit)${2:+ $2}"
}

# This checkout's version (docker/lab/update.sh compares a lab's with it; CHANGELOG.md says what each changed).
LAB_VERSION=1.2.0
# The lab's own image (the mock API, the console, the tools, the class board).
LAB_IMAGE=soar-lab/mock-api:1.2.0

# A lab's name (LAB=, a class's roster), and the rule in words for the line that refuses one (./names.ts).
LAB_NAME_PATTERN='^[a-z]([a-z0-9-]{0,30}[a-z0-9])?$'
LAB_NAME_WORDS="lower-case letters, digits and '-', starting with a letter, at most 32"
# A lab's report files: the checker's last report, its history, the tutor's runs; the host's copy of the
# history keeps the newest HISTORY_KEPT lines.
REPORT_FILE=check-last.json
HISTORY_FILE=check-history.jsonl
RUNS_FILE=runs.json
HISTORY_KEPT=5000
