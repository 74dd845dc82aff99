# shellcheck shell=bash
# TEST INFRASTRUCTURE ONLY: builds one look-alike's rootfs tarball; sourced by build.sh after the
# image's recipe (<image>/image.sh). This file is an input of every tarball's hash.

# build_rootfs NAME TARBALL: mmdebstrap into a directory with the recipe's users, files and chroot
# step, packed as a pax archive (mmdebstrap's own tarball is ustar, which cannot hold n8n's longer
# paths), plus whatever the recipe appends.
build_rootfs() {
  local name=$1 tarball=$2 work line kind rest path content src dest hooks=()
  work=$(mktemp -d "$IMAGES_DIR/.build-$name.XXXXXX")
  WORK_DIRS+=("$work")
  {
    echo 'set -e'
    while read -r kind rest; do
      case $kind in
        passwd) echo "echo '$rest' >>\"\$1/etc/passwd\"" ;;
        group) echo "echo '$rest' >>\"\$1/etc/group\"" ;;
        file)
          read -r path content <<<"$rest"
          echo "mkdir -p \"\$1$(dirname "$path")\" && echo '$content' >\"\$1$path\""
          ;;
      esac
    done < <(essential_lines)
  } >"$work/essential.sh"
  customize >"$work/customize.sh"
  hooks+=(--essential-hook="sh $work/essential.sh \"\$1\"")
  while read -r src dest; do
    hooks+=(--customize-hook="install -m 755 -o 0 -g 0 $HERE/$name/$src \"\$1/$dest\"")
  done < <(copy_files)
  hooks+=(--customize-hook="cp $work/customize.sh \"\$1/tmp/customize.sh\" && chroot \"\$1\" sh /tmp/customize.sh && rm \"\$1/tmp/customize.sh\"")
  log "$name: building the rootfs with mmdebstrap ($SUITE: $PKGS)"
  # shellcheck disable=SC2086
  run 900 "$name: mmdebstrap" mmdebstrap --variant=apt --include="$PKGS" \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' \
    "${hooks[@]}" "$SUITE" "$work/rootfs" ${LAB_IMAGES_MIRROR:-}
  finish_rootfs "$work/rootfs"
  run 300 "$name: packing the rootfs" tar -C "$work/rootfs" -cf "$work/rootfs.tar" --format=posix --numeric-owner .
  rm -rf "$work/rootfs"
  if declare -F append_to_tarball >/dev/null; then
    run 600 "$name: appending to the rootfs" append_to_tarball "$work/rootfs.tar" "$work/stage"
  fi
  mv "$work/rootfs.tar" "$tarball"
  rm -rf "$work"
  # Older tarballs of this image are stale now.
  find "$IMAGES_DIR" -maxdepth 1 -name "$name-*.tar" ! -name "$(basename "$tarball")" -delete
  log "$name: rootfs cached: $tarball ($(du -m "$tarball" | cut -f1) MB)"
}
