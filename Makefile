# Lab appliance: the mock API, the reference workflow on n8n, the acceptance runner and the compose lab.
# Quick start: `make run` (serve on 127.0.0.1:8081) and `make test`.
SHELL := bash
.DEFAULT_GOAL := help
STAMP := node_modules/.install-stamp
HOST ?= 127.0.0.1
PORT ?= 8081
TARGET ?= lab
STAGE ?= all

.PHONY: help install build run test typecheck lint e2e e2e-check test-engine bench acceptance check up down reset health state logs clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 14

$(STAMP): package.json package-lock.json
	@command -v node >/dev/null || { echo "make: Node.js 20+ is needed (node not found)" >&2; exit 1; }
	npm ci --no-audit --no-fund
	@touch $@

install: $(STAMP) ## install the dependencies (npm ci) when needed

build: $(STAMP) ## compile TypeScript to dist/
	npm run build

run: build ## serve the mock API on $(HOST):$(PORT)
	HOST=$(HOST) PORT=$(PORT) node dist/app/main.js

typecheck: $(STAMP)
	npm run typecheck

lint: $(STAMP)
	npm run lint

test: $(STAMP) ## type-check, lint and run every test that needs no Docker engine and no n8n
	npm run typecheck
	npm run lint
	npm test

e2e: build ## install the pinned n8n (cached outside the repo), run the acceptance matrix on it
	bash docker/n8n/e2e.sh

e2e-check: build ## the stage checker on the pinned n8n: the reference passes every stage, n8n variants fail theirs
	bash docker/n8n/e2e-check.sh

test-engine: build ## build and run the compose lab on a private Docker engine, prove isolation
	bash test/engine/run.sh

bench: build ## load benchmark against a bare node:http server; writes bench/RESULTS.md
	npm run bench

acceptance: ## the acceptance matrix: TARGET=lab (running compose lab, default), n8n or reference
	bash docker/lab.sh acceptance $(TARGET)

check: build ## check a trainee's workflow stage by stage: STAGE=<stage|all>, TARGET=lab|n8n (N8N=, API=)|reference, or WORKFLOW=export.json
	@if [ -n "$(WORKFLOW)" ]; then \
	  E2E_WORKFLOWS="$(WORKFLOW)" E2E_API_KEY=1 E2E_RUNNER='node dist/app/acceptance/cli.js check --stage $(STAGE) --target n8n --api "$$API_URL" --n8n "$$N8N_URL" $(ARGS)' bash docker/n8n/e2e.sh; \
	elif [ "$(TARGET)" = lab ]; then bash docker/lab.sh check $(STAGE) $(ARGS); \
	elif [ "$(TARGET)" = n8n ]; then node dist/app/acceptance/cli.js check --stage $(STAGE) --target n8n --n8n "$(N8N)" --api "$(API)" $(ARGS); \
	else node dist/app/acceptance/cli.js check --stage $(STAGE) --target reference $(ARGS); fi

up: ## build and start the lab, wait until healthy, print where things are
	bash docker/lab.sh up

down: ## stop the lab; remove containers, volumes and generated secrets
	bash docker/lab.sh down

reset: ## reset the mock API between exercises
	bash docker/lab.sh reset

health: ## the mock API's /health, through the container
	bash docker/lab.sh health

state: ## the mock API's /state, through the container
	bash docker/lab.sh state

logs: ## follow the lab's logs
	bash docker/lab.sh logs

clean: ## remove build output
	rm -rf dist coverage
