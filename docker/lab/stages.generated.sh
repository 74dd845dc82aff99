# shellcheck shell=bash
# generated: do not edit. Written by `npx tsx app/stages/generate-cli.ts` from app/stages/stages.ts, the one
# declaration of the stages; sourced by docker/lab/lifecycle.sh (the list `make up` prints).

# The stages a trainee builds and checks, in order.
LAB_STAGES=(webhook validate enrich case-lookup decide approve block record idempotency connector-failure rollback)
