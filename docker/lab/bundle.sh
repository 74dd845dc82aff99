# shellcheck shell=bash
# Offline classrooms: `make bundle` writes every image the lab uses into one archive (docker save,
# gzip); `make up LAB_BUNDLE=FILE` loads it instead of pulling or building.

lab_images() { compose config --images | sort -u; }

cmd_bundle() {
  local file=${LAB_BUNDLE:-$ROOT/soar-lab-images.tar.gz} start=$SECONDS images missing
  need_docker
  load_settings
  compose build mock-api
  images=$(lab_images)
  # The walls' image (Debian's iptables on the lab's base): built here when this engine has none yet.
  if ! docker image inspect "$(grep '/walls:' <<<"$images")" >/dev/null 2>&1; then compose build walls; fi
  missing=$(for i in $images; do docker image inspect "$i" >/dev/null 2>&1 || echo "$i"; done)
  if [ -n "$missing" ]; then
    say "pulling what this engine does not have yet: $(echo "$missing" | tr '\n' ' ')"
    # shellcheck disable=SC2086 # one image a word
    for i in $missing; do docker pull -q "$i" >/dev/null || die "could not pull $i: pull it, or bundle on a machine that has it"; done
  fi
  say "saving $(echo "$images" | grep -c .) images into ${file#"$ROOT"/} (a few minutes)"
  # shellcheck disable=SC2086 # one image a word
  if ! docker save $images | gzip -1 >"$file.part"; then
    rm -f "$file.part"
    die "could not write $file"
  fi
  mv "$file.part" "$file"
  say "bundle ${file#"$ROOT"/}: $(($(wc -c <"$file") / 1048576)) MiB in $(since "$start") s; on a machine without registry access: make up LAB_BUNDLE=$(basename "$file")"
}

# With LAB_BUNDLE, the images come from the archive: loaded when any is missing, never pulled or built.
load_bundle() {
  local file=$LAB_BUNDLE i missing=""
  [ -f "$file" ] || die "LAB_BUNDLE=$file: no such file (make bundle writes one)"
  for i in $(lab_images); do docker image inspect "$i" >/dev/null 2>&1 || missing=1; done
  [ -z "$missing" ] && return 0
  say "loading the lab's images from $file"
  docker load -q -i "$file" >/dev/null || die "could not load the images from $file"
}
