#!/bin/sh
# One-shot before n8n starts (compose service n8n-import, n8n's own image): import every workflow in
# /lab/workflows into n8n's database with the n8n CLI, then publish it, so the lab comes up ready.
# Importing keeps the JSON's `id` and unpublishes; `"active": true` in the JSON is ignored, hence the
# explicit publish. Fails loudly on a file without an id or when there is no workflow at all.
set -eu
dir=${LAB_WORKFLOWS_DIR:-/lab/workflows}
count=0
for file in "$dir"/*.json; do
  [ -e "$file" ] || continue
  # A file holds one workflow object or an array of them: print each id, one a line.
  ids=$(node -e '
    const data = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const list = Array.isArray(data) ? data : [data];
    if (list.some((w) => !w || typeof w.id !== "string" || w.id === "")) process.exit(3);
    process.stdout.write(list.map((w) => w.id).join("\n"));
  ' "$file") || { echo "n8n-import: $file: every workflow needs a string id" >&2; exit 1; }
  echo "n8n-import: importing $file"
  n8n import:workflow --input="$file"
  for id in $ids; do
    n8n publish:workflow --id="$id"
    count=$((count + 1))
  done
done
[ "$count" -gt 0 ] || { echo "n8n-import: no workflow found in $dir" >&2; exit 1; }
echo "n8n-import: $count workflow(s) imported and published"
