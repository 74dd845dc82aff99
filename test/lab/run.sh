#!/usr/bin/env bash
# make test-lab: the lab as trainers and trainees use it, on the real platform software, on a real Docker
# engine (Docker 26.1 and Compose v2, what trainers run), every make command as a trainer types it with
# no Node.js on the host:
#   1. the exercise (test/lab/exercise.sh): the refusals of `make up`; `make up` gives an exercise with
#      nothing published; the trainee guide's editor screenshots, written from its editor in Chromium
#      (test/lab/guide-shots.sh); a scripted trainee builds the workflow in three steps, the first in
#      n8n's editor in Chromium, and `make check` follows it stage by stage; a starter; `make solution`
#      refused while the trainee holds the path; the console's Your runs panel in Chromium, each run
#      explained within 2 s of its end, held to n8n's own record, with its figures (test/lab/tutor.sh,
#      ~4 min); the hardening inside every container; who reaches the mock API; `make reset`; nothing lost
#      (test/lab/keep.sh: save, stop/start, an engine restart, a repair, down and restore); `make down`;
#   2. the class (test/lab/class.sh): three labs from a roster, isolated from each other, each console
#      behind its own secret; the matrix, a reset and a check in one lab while another checks; the live
#      class board; the class report; `make bundle` and an offline start from it;
#   3. the update (test/lab/update.sh, when it is there): labs of the version before, from a folder of
#      their own, brought to this checkout's.
# The parts run side by side (see "the parts" below, and test/lab/parts.sh).
# Faithful look-alikes of the pinned n8n, Postgres and Redis images are built here (test/lab/images/, no
# registry can be reached) and tagged with the pinned names, so compose.yaml runs unchanged.
#
# The commands run inside the engine's network namespace, where its published ports live, as they would
# on a trainer's machine. Engine: $DOCKER_HOST when it answers, else a private one
# (../shared/tools/docker-engine; root and `ip netns`), stopped at the end. Every wait is bounded.
# LAB_TEST_PARTS="exercise tls class update" (default all four); for developers also guide, starters, keep,
# walls, tutor, truth (each on a lab of its own: see the parts below). Ends with the line "N passed, N failed".
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
WORK=$(mktemp -d /tmp/soar-lab-test.XXXXXX)
LOG_TAG=lab-test
# shellcheck source=../lib/engine.sh
. test/lib/engine.sh
# shellcheck source=../lib/chromium.sh
. test/lib/chromium.sh
# shellcheck source=lib.sh
. test/lab/lib.sh
# shellcheck source=exercise.sh
. test/lab/exercise.sh
# shellcheck source=guide-shots.sh
. test/lab/guide-shots.sh
# shellcheck source=starters.sh
. test/lab/starters.sh
# shellcheck source=keep.sh
. test/lab/keep.sh
# shellcheck source=class.sh
. test/lab/class.sh
# shellcheck source=k8s.sh
. test/lab/k8s.sh
# shellcheck source=walls.sh
. test/lab/walls.sh
# shellcheck source=secrets.sh
. test/lab/secrets.sh
# shellcheck source=tutor.sh
. test/lab/tutor.sh
# shellcheck source=tutor-figures.sh
. test/lab/tutor-figures.sh
# shellcheck source=truth.sh
. test/lab/truth.sh
# shellcheck source=tls.sh
. test/lab/tls.sh
# shellcheck source=parts.sh
. test/lab/parts.sh
# The update part (update_part, update_stop), when its file is there.
# shellcheck source=/dev/null
[ ! -f test/lab/update.sh ] || . test/lab/update.sh

# The approval time limit of the labs' workflows; n8n checks due waits once a minute on top of it.
export APPROVAL_TIMEOUT_SECONDS=${APPROVAL_TIMEOUT_SECONDS:-20}
export LAB_HEALTH_TIMEOUT=${LAB_HEALTH_TIMEOUT:-300}
# The labs' saves go to the test's own folder, never into the checkout's saved/ (a developer's own saves).
export LAB_SAVE_DIR=$WORK/saved
unset LAB LAB_MODE LAB_SUBNET LAB_EDITOR_PORT LAB_CONSOLE_PORT LAB_BIND
PARTS=${LAB_TEST_PARTS:-exercise tls class update}
BASE_IMAGE=local/node-min:20
ARTEFACTS_IMAGE=soar-lab/mock-api-artefacts:lab-test
OUTSIDE_NET=soar-lab-ltest-outside
OUTSIDE_BOX=soar-lab-ltest-outside-box
OVERLAP_NET=soar-lab-ltest-overlap
STATS_PID=""
LISTENER_PID=""

cleanup() {
  local rc=$? name
  trap - EXIT INT TERM
  # Every step of the clean-up is tried, whatever failed before it.
  set +e
  [ -n "$STATS_PID" ] && kill "$STATS_PID" 2>/dev/null
  [ -n "$LISTENER_PID" ] && kill "$LISTENER_PID" 2>/dev/null
  [ -n "${BOARD_PID:-}" ] && kill "$BOARD_PID" 2>/dev/null
  parts_stop
  walls_stop
  tutor_stop
  tls_stop
  if declare -F update_stop >/dev/null; then update_stop; fi
  if engine_answers; then
    for name in "" a b c offline; do LAB=$name LAB_FORCE_DOWN=1 timeout 300 bash docker/lab.sh down >/dev/null 2>&1 || true; done
    docker rm -f "$OUTSIDE_BOX" >/dev/null 2>&1 || true
    docker network rm "$OUTSIDE_NET" "$OVERLAP_NET" >/dev/null 2>&1 || true
  fi
  stop_engine
  rm -rf "$WORK"
  exit "$rc"
}

# --- prerequisites -------------------------------------------------------------------------------
[ -f dist/app/api/main.js ] || { echo "lab-test: dist/app/api/main.js missing: run npm run build first" >&2; exit 1; }
refuse_running_lab lab-test
trap cleanup EXIT
trap 'exit 130' INT TERM
for tool in unshare curl; do command -v "$tool" >/dev/null || { echo "lab-test: $tool is needed" >&2; exit 1; }; done
# The exercise drives n8n's editor in Chromium, as a trainee does (test/editor).
case " $PARTS " in *" exercise "* | *" guide "* | *" starters "* | *" tutor "* | *" truth "* | *" tls "*) ensure_chromium lab-test ;; esac
test_engine_up

# --- images ----------------------------------------------------------------------------------------
log "platform images (test/lab/images/build.sh)"
images_start=$SECONDS
timeout 3000 bash test/lab/images/build.sh 2>&1 | sed -u 's/^/        /'
IMAGES_SECONDS=$((SECONDS - images_start))
log "the mock API's artefacts"
mock_api_artefacts "$BASE_IMAGE" "$ARTEFACTS_IMAGE"

# --- refusals before anything starts ------------------------------------------------------------------
log "make up refuses what would fail half-way"
nothing_made() { [ -z "$(docker ps -aq --filter label=com.docker.compose.project=soar-lab)" ] && [ ! -e .env ]; }
docker network create --subnet 172.30.0.0/16 "$OVERLAP_NET" >/dev/null
out=$(make_lab up 2>&1) && rc=0 || rc=$?
check "make up refuses a lab subnet that overlaps a Docker network, in one line ($(head -c 90 <<<"$out"))" \
  test "$rc" != 0 -a "$(said_lines "$out")" = 1 -a -n "$(grep -o 'overlaps the Docker network' <<<"$out")"
check "... and made nothing (no container, no .env)" nothing_made
docker network rm "$OVERLAP_NET" >/dev/null
# Started directly (not through a function, which would fork a subshell), so $! is the listener itself.
if [ -n "$ENGINE_NETNS" ]; then
  nsenter --net="/var/run/netns/$ENGINE_NETNS" node -e 'require("net").createServer().listen(5678, "127.0.0.1")' &
else
  node -e 'require("net").createServer().listen(5678, "127.0.0.1")' &
fi
LISTENER_PID=$!
sleep 1
out=$(make_lab up 2>&1) && rc=0 || rc=$?
check "make up refuses a taken editor port, in one line ($(head -c 90 <<<"$out"))" \
  test "$rc" != 0 -a "$(said_lines "$out")" = 1 -a -n "$(grep -o 'is already in use' <<<"$out")"
check "... and made nothing" nothing_made
kill "$LISTENER_PID"
wait "$LISTENER_PID" 2>/dev/null || true
LISTENER_PID=""

# --- the parts -------------------------------------------------------------------------------------
# The class and the update, on labs of their own, run in the background (parts.sh) beside the exercise's
# steps that neither drive Chromium nor time the tutor: on two processors, labs starting and a class's
# checks beside them make n8n's editor miss the 20 s its pages get in Chromium (test/editor) and the
# tutor's cards their 2 s. The class starts creating its labs before the update does (CLASS_GATE), so that
# it gets the first slots. What needs the engine to itself runs after them, alone: nothing lost from the
# engine's restart on (it restarts every lab; its figures are one lab's) and the class's offline start (it
# removes the images new containers need).
selected() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
CLASS_GATE=$WORK/gate-class
after_the_class() { if selected class; then part_gate_wait class 1200; fi; }
if selected exercise; then
  timed exercise_up exercise_guide_shots exercise_build exercise_starters_in_chromium exercise_tutor exercise_truth
fi
# The classroom over TLS from a laptop's namespace, a class of two (test/lab/tls.sh), in this phase: its
# Chromium steps (tls_chromium) get the processors to themselves, and its class is down before the class
# part makes its own (the same roster file, the same slots).
if selected tls; then
  TLS_STARTED=$SECONDS
  timed tls_up tls_plain tls_between tls_chromium tls_down
  TLS_SECONDS=$((SECONDS - TLS_STARTED))
fi
# What drives Chromium and times the tutor is over: LAB_TEST_CHROMIUM_DONE (a file) tells a caller that
# runs other suites beside this one (.ci/run) that it may start them now.
[ -z "${LAB_TEST_CHROMIUM_DONE:-}" ] || : >"$LAB_TEST_CHROMIUM_DONE"
if selected class; then
  part_in_background class "CLASS_UP_SECONDS CLASS_AGAIN_SECONDS CLASS_PEAK_MIB REPORT_SECONDS BUNDLE_MB MATRIX_SECONDS" \
    class_up class_isolation class_side_by_side class_board class_report class_check_kept class_down_one class_bundle
fi
if selected update; then
  if declare -F update_part >/dev/null; then
    part_in_background update "${UPDATE_FIGURES:-}" after_the_class update_part
  else
    log "the update part: no test/lab/update.sh yet, left out"
  fi
fi
if selected exercise; then
  timed exercise_starters_beside exercise_isolation exercise_walls exercise_secrets exercise_reset k8s_setup_in_lab exercise_keep
fi
parts_join
if selected exercise; then timed exercise_keep_restart exercise_down; fi
if selected class; then timed class_offline; fi
# Developers: LAB_TEST_PARTS=keep runs only what nothing-lost needs (make up, the trainee's workflow, the keep
# checks, make down).
if selected keep; then
  exercise_up
  check "the scripted trainee publishes the whole workflow" trainee all
  exercise_keep
  exercise_keep_restart
  exercise_down
fi
# LAB_TEST_PARTS=guide: only the guide's screenshots (make up, the editor pass, make down).
if selected guide; then
  exercise_up
  exercise_guide_shots
  exercise_down
fi
# LAB_TEST_PARTS=starters: only the starters pass on a fresh lab (make up, starters, make down);
# LAB_STARTER_STAGES picks the stages (default: every stage that is quick on its own).
if selected starters; then
  exercise_up
  exercise_starters
  exercise_down
fi
# LAB_TEST_PARTS=walls: only the lab's walls and secrets (make up, the isolation, walls and secrets probes,
# make down).
if selected walls; then
  exercise_up
  exercise_isolation
  exercise_walls
  exercise_secrets
  exercise_down
fi
# LAB_TEST_PARTS=tutor: only the tutor's Your runs panel, in Chromium, with its figures, on a lab of its own
# (make up, the tutor, make down, the runs kept on the host: about 5 minutes; test/lab/tutor.sh).
if selected tutor; then
  exercise_up
  exercise_tutor
  exercise_down
  tutor_kept
fi
# LAB_TEST_PARTS=truth: only the tutor after Reset, make reset, make stop / make start, a console restart, runs
# while one waits and a run of 5 MiB, in Chromium, on a lab of its own (test/lab/truth.sh).
if selected truth; then
  exercise_up
  check "the scripted trainee publishes the whole workflow (and the rollback)" trainee all
  exercise_truth
  exercise_down
fi

echo
echo "lab test figures (engine $(docker version -f '{{.Server.Version}}'), compose $(docker compose version --short)):" \
  "images ${IMAGES_SECONDS} s; make up to ready ${UP_SECONDS:-?} s; checks: $(paste -sd, "$WORK/step-times" 2>/dev/null);" \
  "the guide's screenshots ${GUIDE_SHOTS_SECONDS:-?} s; starters pass (${LAB_STARTER_STAGES// /,}) ${STARTERS_SECONDS:-?} s;" \
  "one lab's memory idle ${IDLE_MIB:-?} MiB; make save ${SAVE_SECONDS:-?} s, make stop ${STOP_SECONDS:-?} s," \
  "make start to listening ${START_SECONDS:-?} s, an engine restart to listening ${ENGINE_RETURN_SECONDS:-?} s," \
  "make restore ${RESTORE_SECONDS:-?} s (with its save first, on a lab holding the trainee's workflows ${RESTORE_EDIT_SECONDS:-?} s); make down ${DOWN_SECONDS:-?} s;" \
  "class-up of three labs ${CLASS_UP_SECONDS:-?} s, again on the running class ${CLASS_AGAIN_SECONDS:-?} s;" \
  "lab a under the matrix ${CLASS_PEAK_MIB:-?} MiB peak (matrix ${MATRIX_SECONDS:-?} s, beside a check in lab b);" \
  "class-report ${REPORT_SECONDS:-?} s; bundle ${BUNDLE_MB:-?} MB;" \
  "the tutor part ${TUTOR_SECONDS:-?} s (${TUTOR_FIGURES:-no figures}); the truth part ${TRUTH_SECONDS:-?} s (${TRUTH_FIGURES:-no figures});" \
  "the tls part ${TLS_SECONDS:-?} s (class-up ${TLS_UP_SECONDS:-?} s, its Chromium steps ${TLS_CHROMIUM_SECONDS:-?} s); total ${SECONDS} s"
echo "lab test steps (s): $(paste -sd, "$WORK/step-seconds" 2>/dev/null)"
summary
