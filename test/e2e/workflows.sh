# shellcheck shell=bash
# The workflow exports on the host's pinned n8n (sourced by test/e2e/run.sh, check.sh and guide.sh):
# an export copied for this n8n, its webhooks waited for, and a suite's next run's workflows swapped in
# on the n8n the suite started once. SYSTEM_NODE is the host's node (n8n's Node 24 may be first on PATH).

# export_copy SRC DST API_URL N: SRC copied to DST with the lab's mock API (http://mock-api:8081) made
# API_URL and an id made when it has none (an export from the editor may lack one: publish needs it);
# prints the id, then the Webhook nodes' paths, on one line.
export_copy() {
  "$SYSTEM_NODE" -e '
    const fs = require("fs");
    const [src, dst, api, n] = process.argv.slice(1);
    let text = fs.readFileSync(src, "utf8");
    text = text.split("http://mock-api:8081").join(api);
    const wf = JSON.parse(text);
    if (Array.isArray(wf) || typeof wf !== "object" || !Array.isArray(wf.nodes)) {
      console.error("not an n8n workflow export (no nodes): " + src); process.exit(2);
    }
    if (typeof wf.id !== "string" || !/^[A-Za-z0-9]{1,36}$/.test(wf.id)) wf.id = ("CheckedExport" + n + "x".repeat(16)).slice(0, 16);
    fs.writeFileSync(dst, JSON.stringify(wf));
    const paths = wf.nodes.filter((x) => x.type === "n8n-nodes-base.webhook" && x.parameters && x.parameters.path)
      .map((x) => x.parameters.path);
    console.log([wf.id, ...paths].join(" "));
  ' "$@"
}

# webhooks_registered N8N_URL PATH...: waits up to 60 s until n8n holds POST /webhook/PATH for each.
# Production webhooks answer 404 for a moment after readiness. A GET tells "registered for POST only"
# apart from "not registered" (both 404, different messages) without starting a run.
webhooks_registered() {
  local url=$1 path registered
  shift
  for _ in $(seq 1 120); do
    registered=1
    for path in "$@"; do
      curl -s "$url/webhook/$path" | grep -q 'not registered for GET' || { registered=""; break; }
    done
    [ -n "$registered" ] && return 0
    sleep 0.5
  done
  return 1
}

# swap_workflows DIR FILE...: the n8n this suite started (N8N_URL, N8N_API_KEY with the lab's scopes,
# API_URL) publishes these exports in place of the former run's, through n8n's public API (app/n8n/cli.ts
# swap): the former run's unfinished runs stopped (none may be left), the workflows of the same names
# updated in place and published, every other published workflow unpublished; then their webhooks are
# waited for. The copies and cli.js's lines go to DIR; one line on stderr says what changed.
swap_workflows() {
  local dir=$1 wf line words i=0 paths=() copies=()
  shift
  mkdir -p "$dir"
  for wf; do
    i=$((i + 1))
    line="$(export_copy "$wf" "$dir/$i.json" "$API_URL" "$i")" || return 2
    read -r -a words <<<"$line"
    paths+=("${words[@]:1}")
    copies+=("$dir/$i.json")
  done
  "$SYSTEM_NODE" dist/app/n8n/cli.js swap "${copies[@]}" >"$dir/swap.log" 2>&1 || { cat "$dir/swap.log" >&2; return 2; }
  echo "[e2e] swapped in $i workflow(s): $(grep -E '^(stopped|unpublished)' "$dir/swap.log" | paste -sd ';' -)" >&2
  webhooks_registered "$N8N_URL" "${paths[@]}" || { echo "[e2e] webhooks not registered: ${paths[*]}" >&2; return 2; }
}
