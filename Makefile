# Lab appliance: the mock API, the reference workflow on n8n, the acceptance runner and the compose lab.
# Quick start: `make run` (serve on 127.0.0.1:8081) and `make test`.
SHELL := bash
.DEFAULT_GOAL := help
STAMP := node_modules/.install-stamp
HOST ?= 127.0.0.1
PORT ?= 8081
TARGET ?= lab
STAGE ?= all

.PHONY: help install build run test typecheck lint e2e e2e-check test-engine test-lab bench acceptance check up down reset health state logs clean console test-console test-console-n8n

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 18

$(STAMP): package.json package-lock.json
	@command -v node >/dev/null || { echo "make: Node.js 20+ is needed (node not found)" >&2; exit 1; }
	npm ci --no-audit --no-fund
	@touch $@

install: $(STAMP) ## install the dependencies (npm ci) when needed

build: $(STAMP) ## compile TypeScript to dist/
	npm run build

run: build ## serve the mock API on $(HOST):$(PORT)
	HOST=$(HOST) PORT=$(PORT) node dist/app/main.js

console: build ## the lab console on 127.0.0.1:8088 for MOCK_API_URL (default :8081) and N8N_URL (default :5678)
	CONSOLE_HOST=$(HOST) node dist/app/console/main.js

typecheck: $(STAMP) ## type-check (tsc --noEmit)
	npm run typecheck

lint: $(STAMP) ## lint and format check (Biome)
	npm run lint

test: $(STAMP) ## type-check, lint and run every test that needs no Docker engine and no n8n
	npm run typecheck
	npm run lint
	npm test

e2e: build ## install the pinned n8n (cached outside the repo), run the acceptance matrix on it
	bash docker/n8n/e2e.sh

test-console: $(STAMP) ## the lab console in a real browser (installs Debian's chromium when missing)
	bash test/console/run.sh

test-console-n8n: build ## the console's approvals on the real n8n (e2e set-up; 409 retried)
	bash test/console/run-n8n.sh

e2e-check: build ## the stage checker on the pinned n8n: the reference passes every stage, n8n variants fail theirs
	bash docker/n8n/e2e-check.sh

test-engine: build ## build and run the compose lab on a private Docker engine, prove isolation
	bash test/engine/run.sh

test-lab: build ## the real lab on a private engine: make up, acceptance, reset, down (platform images built here)
	bash test/lab/run.sh

bench: build ## load benchmark (wrk) against a minimal node:http server; writes bench/RESULTS.md
	npm run bench

acceptance: ## the acceptance matrix: TARGET=lab (running compose lab, default), n8n or reference
	bash docker/lab.sh acceptance $(TARGET)

check: build ## check a trainee's workflow stage by stage: STAGE=<stage|all>, TARGET=lab|n8n (N8N=, API=)|reference, or WORKFLOW=export.json
	@if [ -n "$(WORKFLOW)" ]; then \
	  E2E_WORKFLOWS="$(WORKFLOW)" E2E_API_KEY=1 E2E_RUNNER='node dist/app/acceptance/cli.js check --stage $(STAGE) --target n8n --api "$$API_URL" --n8n "$$N8N_URL" $(ARGS)' bash docker/n8n/e2e.sh; \
	elif [ "$(TARGET)" = lab ]; then bash docker/lab.sh check $(STAGE) $(ARGS); \
	elif [ "$(TARGET)" = n8n ]; then node dist/app/acceptance/cli.js check --stage $(STAGE) --target n8n --n8n "$(N8N)" --api "$(API)" $(ARGS); \
	else node dist/app/acceptance/cli.js check --stage $(STAGE) --target reference $(ARGS); fi

up: ## start the lab (LAB_SUBNET, LAB_EDITOR_PORT, LAB_CONSOLE_PORT), wait until ready, print where things are
	bash docker/lab.sh up

down: ## stop the lab; remove containers, volumes and generated secrets
	bash docker/lab.sh down

reset: ## a clean exercise: stop unfinished workflow runs, clear the mock API
	bash docker/lab.sh reset

health: ## the mock API's /health, through the container
	bash docker/lab.sh health

state: ## the mock API's /state, through the container
	bash docker/lab.sh state

logs: ## follow the lab's logs
	bash docker/lab.sh logs

clean: ## remove build output
	rm -rf dist coverage
