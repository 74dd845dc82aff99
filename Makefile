# Lab appliance: the mock API, the reference workflow on n8n, the acceptance runner and the compose lab.
# Trainers: `make up` (LAB=<name> for one of several labs), `make reset`, `make down`; a class:
# `make class-up ROSTER=class.txt`. The lab's commands need Docker, Compose v2 and make, not Node.js.
# Developers: `make run` (serve on 127.0.0.1:8081) and `make test`.
SHELL := bash
.DEFAULT_GOAL := help
STAMP := node_modules/.install-stamp
HOST ?= 127.0.0.1
PORT ?= 8081
TARGET ?= lab
STAGE ?= all
N ?= 16

# Every value given to make reaches the scripts as data, never as shell code: a recipe line holds
# $(call quoted,NAME), NAME's own text in single quotes (make's `value`: not expanded), and the settings
# the scripts read (LAB, ROSTER, FROM, LAB_*) reach them through the environment. A `$` in a value given
# on make's command line would be expanded by make itself before any script sees it: refused, in one line.
quoted = '$(subst ','\'',$(value $(1)))'
$(foreach v,$(.VARIABLES),$(if $(filter command line,$(origin $(v))),$(if $(findstring $$,$(value $(v))),$(error $(v) holds a '$$': a value given to make is data, and make would expand it; give it without '$$'))))

.PHONY: help install build run test test-floods typecheck lint lint-shell e2e e2e-check e2e-guide e2e-all bench-lab bench-tutor bench-stages bench-neighbour test-n8n test-engine test-editor test-lab test-class-scale bench acceptance check up down save restore status stop start reset solution starter health state logs class-up class-down class-save class-stop class-start class-restore class-report class-board roster bundle clean console test-console test-console-n8n
.PHONY: check-lab check-n8n check-reference check-workflow acceptance-lab acceptance-n8n acceptance-reference check-unknown acceptance-unknown

# `make help`: each target's `## ` comment, under the `##@ ` heading above it (headings in the order they
# first appear, an included file's targets added to its heading's group), each $(NAME) in a comment shown
# with NAME's value (given to awk through the environment, quoted: data, as everywhere here).
help_names = $(sort $(shell sed -n 's/^[a-z0-9-]*:.*\#\# //p' $(MAKEFILE_LIST) | grep -o '[$$]([A-Za-z_][A-Za-z0-9_]*)' | tr -d '$$()'))

##@ For trainers (the lab's commands need Docker, Compose v2 and make; LAB=<name> for one of several labs)

up: ## start a lab and print where things are: an exercise (LAB_MODE=demo publishes the guide's finished workflow); LAB=<name>; a lab of an earlier version is updated, nothing lost
	bash docker/lab.sh up

down: ## save the lab's workflows to saved/<lab>/ and its checks to reports/, then remove the lab (a failed save removes nothing; LAB_FORCE_DOWN=1)
	bash docker/lab.sh down

reset: ## between exercises: stop unfinished runs, clear the destination systems; the workflows stay
	bash docker/lab.sh reset

# `make check` and `make acceptance` go one of these ways, decided here and nowhere else (the scripts
# never call make): in the lab (TARGET=lab, a trainer's: docker/lab.sh, Docker only), or, for developers
# on this machine's Node.js, on the pinned n8n (TARGET=n8n), on the in-process reference
# (TARGET=reference), or (make check WORKFLOW=export.json) an exported workflow on the pinned n8n. Any
# other TARGET is refused in one line.
target_way = $(if $(filter-out lab n8n reference,$(value TARGET))$(word 2,$(value TARGET)),unknown,$(or $(value TARGET),unknown))
check_args = stage=$(call quoted,STAGE); read -r -a args <<<$(call quoted,ARGS)

check: check-$(if $(value WORKFLOW),workflow,$(target_way)) ## check the trainee's workflow in the lab: STAGE=<stage|all> [ARGS=...]; developers: TARGET=n8n|reference, WORKFLOW=export.json

check-lab:
	@$(check_args); bash docker/lab.sh check "$$stage" "$${args[@]}"

check-n8n: build
	@$(check_args); node dist/app/check/cli.js --stage "$$stage" --target n8n --n8n $(call quoted,N8N) --api $(call quoted,API) "$${args[@]}"

check-reference: build
	@$(check_args); node dist/app/check/cli.js --stage "$$stage" --target reference "$${args[@]}"

check-workflow: build
	@$(check_args); STAGE="$$stage" ARGS="$${args[*]}" E2E_WORKFLOWS=$(call quoted,WORKFLOW) E2E_API_KEY=1 \
	  E2E_RUNNER='set -f; node dist/app/check/cli.js --stage "$$STAGE" --target n8n --api "$$API_URL" --n8n "$$N8N_URL" $$ARGS' bash test/e2e/run.sh

check-unknown acceptance-unknown:
	@printf "make: unknown TARGET '%s' (lab, n8n or reference)\n" $(call quoted,TARGET) >&2; exit 1

starter: ## for a trainee stuck at STAGE=<stage>: the guide's workflow up to the stage before, added unpublished to the editor
	bash docker/lab.sh starter $(call quoted,STAGE)

save: ## every workflow of the lab, published or not, to saved/<lab>/<UTC time>/ (trainer-only)
	bash docker/lab.sh save

restore: ## save the lab first, then the latest save (or FROM=saved/<lab>/<time>) back into it, published ones published
	bash docker/lab.sh restore

status: ## this checkout's version, and each lab's: its version, whether it runs, what make up does with it (CHANGELOG.md)
	bash docker/lab.sh status

stop: ## stop the lab's containers for the night; workflows, login and settings are kept
	bash docker/lab.sh stop

start: ## start a stopped lab again: same login, published workflows listening, the same addresses
	bash docker/lab.sh start

solution: ## publish the workflows the trainee guide builds, finished, on the running lab (refused while a workflow holds their paths)
	bash docker/lab.sh solution

acceptance: acceptance-$(target_way) ## the acceptance matrix on the lab's published solution (make solution first); developers: TARGET=n8n|reference (the simulator)

acceptance-lab:
	bash docker/lab.sh acceptance

acceptance-n8n: e2e

acceptance-reference: build
	mkdir -p reports
	node dist/app/acceptance/cli.js --target reference --report reports/acceptance-reference.json

health: ## the mock API's /health, through the container
	bash docker/lab.sh health

state: ## the mock API's /state, through the container
	bash docker/lab.sh state

logs: ## follow the lab's logs
	bash docker/lab.sh logs

class-up: ## a lab per trainee named in ROSTER=<file> (one name a line); adds missing labs, updates those of an earlier version, changes no other
	bash docker/lab.sh class-up

class-down: ## save (workflows and checks), then remove, every lab of ROSTER=<file>
	bash docker/lab.sh class-down

class-save: ## make save for every lab of ROSTER=<file>
	bash docker/lab.sh class-save

class-stop: ## make stop for every lab of ROSTER=<file>
	bash docker/lab.sh class-stop

class-start: ## make start for every lab of ROSTER=<file>
	bash docker/lab.sh class-start

class-restore: ## make restore (each lab's latest save) for every lab of ROSTER=<file>
	bash docker/lab.sh class-restore

class-report: ## every lab's checks: reports/class.html, class.json, class.csv, class-history.csv (ROSTER=<file>)
	bash docker/lab.sh class-report

class-board: ## a live page of the class for the trainer (ROSTER=<file>; CLASS_BOARD_PORT, default 8080); Ctrl-C stops it
	bash docker/lab.sh class-board

roster: ## print the class roster (URLs, logins, ssh -L lines) and write labs/class-roster.txt (ROSTER=<file>)
	bash docker/lab.sh roster

bundle: ## write every image the lab uses into one archive for offline classrooms (LAB_BUNDLE=file)
	bash docker/lab.sh bundle

help: ## this list
	@echo 'make COMMAND [NAME=value...]; defaults shown as this make sees them. LAB_TRACE=1 traces every host command.'
	@$(foreach v,$(help_names),$(v)=$(call quoted,$(v))) awk ' \
	  FNR == 1 { group = "" } \
	  /^##@ / { group = substr($$0, 5); sub(/ [(].*/, "", group); if (!(group in at)) { at[group] = ++n; title[n] = substr($$0, 5) }; next } \
	  /^[a-z0-9-]+:.*## / { \
	    name = $$0; sub(/:.*/, "", name); text = substr($$0, index($$0, "## ") + 3); out = ""; \
	    while (match(text, /[$$][(][A-Za-z_][A-Za-z0-9_]*[)]/)) { \
	      out = out substr(text, 1, RSTART - 1) ENVIRON[substr(text, RSTART + 2, RLENGTH - 3)]; \
	      text = substr(text, RSTART + RLENGTH) } \
	    lines[at[group] + 0] = lines[at[group] + 0] sprintf("  %-17s %s\n", name, out text) } \
	  END { if (lines[0] != "") printf "\nWithout a group (a ##@ heading is missing above them):\n%s", lines[0]; \
	    for (i = 1; i <= n; i++) printf "\n%s:\n%s", title[i], lines[i] }' $(MAKEFILE_LIST)

include deploy/kubernetes/k8s.mk

##@ For developers (this machine's Node.js 20+)

$(STAMP): package.json package-lock.json
	@command -v node >/dev/null || { echo "make: Node.js 20+ is needed (node not found)" >&2; exit 1; }
	npm ci --no-audit --no-fund
	@touch $@

install: $(STAMP) ## install the dependencies (npm ci) when needed

build: $(STAMP) ## compile TypeScript to dist/
	npm run build

run: build ## serve the mock API on $(HOST):$(PORT)
	HOST=$(call quoted,HOST) PORT=$(call quoted,PORT) node dist/app/api/main.js

console: build ## the lab console on 127.0.0.1:8088 for MOCK_API_URL (default :8081) and N8N_URL (default :5678)
	CONSOLE_HOST=$(call quoted,HOST) node dist/app/console/main.js

typecheck: $(STAMP) ## type-check (tsc --noEmit)
	npm run typecheck

lint: $(STAMP) ## lint and format check (Biome)
	npm run lint

test: $(STAMP) test-floods ## type-check, lint (TypeScript and shell) and run every test that needs no Docker engine and no n8n
	npm run typecheck
	npm run lint
	bash test/lint/shell.sh
	bash test/docs/nginx.sh
	npm test -- --exclude 'test/**/*-flood.test.ts'

test-floods: $(STAMP) ## the floods (10,000 connections at the console's gate), one file at a time, first: they measure the gate, not a neighbour's test
	npm test -- --maxWorkers=1 test/console/console-flood.test.ts test/console/editor-gate-flood.test.ts

lint-shell: ## shellcheck over every shell file (installs Debian's shellcheck when missing)
	bash test/lint/shell.sh

e2e: build ## install the pinned n8n (cached outside the repo), run the acceptance matrix on it
	bash test/e2e/run.sh

test-console: build ## the lab console in a real browser (installs Debian's chromium when missing)
	bash test/browser/run.sh

test-console-n8n: build ## the console's approvals on the real n8n (e2e set-up; 409 retried)
	bash test/console/run-n8n.sh

e2e-check: build ## the stage checker on one pinned n8n: each broken variant fails its stage, the guide's workflow passes every stage, the simulator ends every scenario as n8n does
	bash test/e2e/check.sh

e2e-guide: build ## the trainee guide's workflow on one pinned n8n: each stage's partial passes its stage, then the whole of it all
	bash test/e2e/guide.sh

e2e-all: build ## e2e, e2e-guide and e2e-check in turn on ONE pinned n8n started once (what CI runs); each suite's time and result
	bash test/e2e/all.sh

bench-lab: build ## one lab's memory and processor per service, idle and under a check, on the tests' engine (prints its method)
	bash bench/lab-idle.sh

bench-tutor: build ## the tutor's figures on a lab of its own, in Chromium: 20 runs one every 2 s, a page open and none, 15 s idle (prints its method)
	LAB_TEST_PARTS=tutor LAB_TUTOR_RUNS=20 LAB_TUTOR_EVERY_MS=2000 LAB_TUTOR_IDLE_SECONDS=15 bash test/lab/run.sh

bench-stages: build ## each stage checked alone (ARGS=--only), passing and failing, on the pinned n8n: seconds per stage (REPEAT=3; prints its method)
	bash bench/stage-check.sh

bench-neighbour: build ## one lab's check beside another lab's runaway workflow, with and without the processor limits (prints its method)
	bash bench/neighbour.sh

test-n8n: build ## the n8n client's CLI and the scripted trainee on the pinned n8n (SQLite, loopback)
	bash test/n8n/run.sh

test-engine: build ## build and run the compose lab on a private Docker engine, prove isolation
	bash test/engine/run.sh

test-editor: $(STAMP) ## n8n's editor in Chromium as a trainee meets it: no AI entry point; SHOTS=DIR keeps its screenshots
	bash test/editor/run.sh

test-lab: build ## the real lab on a private engine: make up, acceptance, reset, down (platform images built here)
	bash test/lab/run.sh

test-class-scale: build ## how many trainees one host holds: N=$(N) labs checking at once, then as a class checks for SCALE_MINUTES=20 (long; not in CI)
	N=$(call quoted,N) bash test/lab/scale.sh

bench: build ## load benchmark (wrk) against a minimal node:http server; writes bench/RESULTS.md
	npm run bench

clean: ## remove build output
	rm -rf dist coverage
