#!/bin/sh
# One-shot before n8n starts (compose service n8n-import, n8n's own image): import every workflow in
# /lab/workflows into n8n's database with the n8n CLI, then publish it, so the lab comes up ready.
# Importing keeps the JSON's `id` and unpublishes; `"active": true` in the JSON is ignored, hence the
# explicit publish. Fails loudly on a file without an id or when there is no workflow at all.
# Once done, it records a digest of the files in n8n's volume; when the one-shot runs again on the same
# files (a second `make up` that starts a stopped service), it imports nothing: a re-import would
# unpublish the workflows of a running n8n.
set -eu
dir=${LAB_WORKFLOWS_DIR:-/lab/workflows}
marker=${LAB_IMPORT_MARKER:-$HOME/.n8n/lab-workflows.sha256}
digest=$(node -e '
  const fs = require("fs"), path = require("path"), hash = require("crypto").createHash("sha256");
  for (const f of fs.readdirSync(process.argv[1]).filter((f) => f.endsWith(".json")).sort())
    hash.update(f + "\0" + fs.readFileSync(path.join(process.argv[1], f)) + "\0");
  process.stdout.write(hash.digest("hex"));
' "$dir")
if [ -f "$marker" ] && [ "$(cat "$marker")" = "$digest" ]; then
  echo "n8n-import: the workflows are imported and published already (unchanged files); nothing to do"
  exit 0
fi
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
printf '%s' "$digest" >"$marker"
echo "n8n-import: $count workflow(s) imported and published"
