# shellcheck shell=bash
# What the editor driver (test/editor/guide-views.ts) said it framed in the guide's screenshots, held to what
# the guide needs: the canvas of a stage shows every node of that stage, readable; the Executions tab shows
# the run's first nodes and the item counts on their connections; the Wait node's panel every parameter.
# Sourced by test/editor/run.sh and test/lab/guide-shots.sh; each takes the driver's output file.

# views_said KIND OUT: the driver's line for KIND (canvas, Executions, Wait node's panel), its words after
# the colon, shortened.
views_said() { grep -E "^$1: (.* nodes in view|the run zoomed|[0-9]+ parameters)" "$2" | head -n 1 | sed "s/^$1: //" | cut -c1-110; }

# canvas_view_ok OUT STAGE.json: the canvas line names every node of STAGE.json, and nothing else.
canvas_view_ok() {
  local said want
  said=$(grep -m1 '^canvas: .*nodes in view' "$1" | sed 's/.*px wide: //' | tr ',' '\n' | sed 's/^ *//' | sort)
  want=$(node -e 'for (const n of JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).nodes) console.log(n.name)' "$2" | sort)
  if [ -z "$want" ] || [ "$said" != "$want" ]; then
    echo "in view: $(tr '\n' ',' <<<"$said") want: $(tr '\n' ',' <<<"$want")" >&2
    return 1
  fi
}

# executions_view_ok OUT: the Executions line names the trigger and Validate among four or more nodes in
# view, and at least one item count.
executions_view_ok() {
  local line
  line=$(grep -m1 '^Executions: the run zoomed' "$1") || { echo "no Executions line" >&2; return 1; }
  if ! grep -q ': Webhook, ' <<<"$line" || ! grep -q 'Validate' <<<"$line" || ! grep -Eq 'counts [0-9]+ items?' <<<"$line"; then
    echo "$line" >&2
    return 1
  fi
}

# wait_view_ok OUT: the Wait node's panel line names its time limit's parameters, down to Unit.
wait_view_ok() {
  local line field
  line=$(grep -m1 "^Wait node's panel: " "$1") || { echo "no Wait node's panel line" >&2; return 1; }
  for field in Resume 'HTTP Method' 'Limit Wait Time' 'Limit Type' Amount Unit; do
    grep -q "$field" <<<"$line" || { echo "no $field in: $line" >&2; return 1; }
  done
}
