#!/bin/sh
# n8n-setup (the mock API pod's init container, the lab's image): waits for n8n main, makes n8n's owner
# (the lab's login) and a key for n8n's public API, leaves the key for the console in /lab/n8n-key, and in
# demo mode publishes the reference workflows (/lab/workflows). Once more on every start of the pod.
set -eu
say() { echo "lab-setup: $*"; }
ready="fetch(process.env.N8N_URL+'/healthz/readiness').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
waited=0
until node -e "$ready"; do
  [ "$waited" -lt 600 ] || { say "n8n at $N8N_URL was not ready within 600 s" >&2; exit 1; }
  sleep 5
  waited=$((waited + 5))
done
out=$(printf '{"email":"%s","password":"%s","firstName":"Lab","lastName":"Trainee"}' \
  "$N8N_OWNER_EMAIL" "$N8N_OWNER_PASSWORD" | node dist/app/n8n/cli.js setup)
say "$(printf '%s\n' "$out" | sed -n 's/^owner /n8n owner /p')"
key=$(printf '%s\n' "$out" | sed -n 's/^key //p')
[ -n "$key" ] || { say "n8n gave no API key" >&2; exit 1; }
(umask 077 && printf '%s' "$key" >/lab/n8n-key/n8n-api-key)
say "n8n API key for the console written"
if [ "$LAB_MODE" = demo ]; then
  # A refusal (a trainee's workflow holds the path) is said, and the lab starts all the same.
  N8N_API_KEY=$key node dist/app/n8n/cli.js solution || say "the reference workflows were not published"
fi
