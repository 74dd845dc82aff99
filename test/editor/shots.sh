# shellcheck shell=bash
# The trainee guide's editor screenshots as test/editor/trainee-editor.ts --shots writes them: which they
# are and whether each is fit for the guide. Sourced by test/editor/run.sh and test/lab/guide-shots.sh.

# The whole pages (1280x800), the Wait node's whole panel (shot in a taller window: the page's width, taller
# than the page) and the crops from the Connector failure example (--example).
EDITOR_PAGES=(editor-overview editor-canvas editor-executions)
EDITOR_PANELS=(editor-wait-node)
EDITOR_CROPS=(editor-error-output editor-retry-loop)

# png_size FILE: "WIDTH HEIGHT" from the PNG's IHDR (big-endian, bytes 16-23).
png_size() { od -An -tu4 --endian=big -j16 -N8 "$1" | awk '{print $1, $2}'; }

# editor_pages_ok DIR: every page written, 1280x800.
editor_pages_ok() {
  local f
  for f in "${EDITOR_PAGES[@]}"; do
    [ -s "$1/$f.png" ] || { echo "missing $1/$f.png" >&2; return 1; }
    [ "$(png_size "$1/$f.png")" = "1280 800" ] || { echo "$f.png is $(png_size "$1/$f.png")" >&2; return 1; }
  done
}

# editor_panels_ok DIR: every panel written, at least 1000 wide (the panel's three columns) and taller than
# the 800-pixel page (every parameter below the fold included), at most 1280x1400 (the window it is shot in).
editor_panels_ok() {
  local f w h
  for f in "${EDITOR_PANELS[@]}"; do
    [ -s "$1/$f.png" ] || { echo "missing $1/$f.png" >&2; return 1; }
    read -r w h < <(png_size "$1/$f.png")
    if [ "$w" -lt 1000 ] || [ "$w" -gt 1280 ] || [ "$h" -le 800 ] || [ "$h" -gt 1400 ]; then
      echo "$f.png is ${w}x$h" >&2
      return 1
    fi
  done
}

# editor_crops_ok DIR: every crop written, at least 320x240 and smaller than the 1280x800 page.
editor_crops_ok() {
  local f w h
  for f in "${EDITOR_CROPS[@]}"; do
    [ -s "$1/$f.png" ] || { echo "missing $1/$f.png" >&2; return 1; }
    read -r w h < <(png_size "$1/$f.png")
    if [ "$w" -lt 320 ] || [ "$h" -lt 240 ] || [ "$w" -ge 1280 ] || [ "$h" -ge 800 ]; then
      echo "$f.png is ${w}x$h" >&2
      return 1
    fi
  done
}

# guide_editor_images GUIDE: the editor screenshots GUIDE shows (img/editor-*.png), one name a line.
guide_editor_images() { grep -o 'img/editor-[a-z0-9-]*\.png' "$1" | sed 's|^img/||; s|\.png$||' | sort -u; }

# guide_shots_written GUIDE DIR SINCE: every editor screenshot GUIDE shows is one the driver writes, and
# DIR's copy was written after the file SINCE.
guide_shots_written() {
  local f
  [ -n "$(guide_editor_images "$1")" ] || { echo "$1 shows no editor screenshot" >&2; return 1; }
  while IFS= read -r f; do
    [[ " ${EDITOR_PAGES[*]} ${EDITOR_PANELS[*]} ${EDITOR_CROPS[*]} " == *" $f "* ]] ||
      { echo "$1 shows $f.png, which the editor driver does not write" >&2; return 1; }
    [ "$2/$f.png" -nt "$3" ] || { echo "$2/$f.png was not written by this run" >&2; return 1; }
  done < <(guide_editor_images "$1")
}
