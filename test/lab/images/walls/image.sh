# shellcheck shell=bash
# TEST INFRASTRUCTURE ONLY: the recipe of the soar-lab/walls:1.2.0 look-alike, sourced by build.sh. The
# Dockerfile's `walls` stage is the lab's Node base with Debian's iptables; the engine cannot pull that
# base, and the walls need only a shell and iptables (docker/walls/walls.sh, mounted by compose.yaml).
TAG=soar-lab/walls:1.2.0
PKGS="iptables"
STOPSIGNAL=""

essential_lines() { :; }
copy_files() { :; }
customize() { echo 'true'; }
finish_rootfs() { :; }

changes() {
  printf '%s\n' 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' 'CMD ["sh", "/walls.sh"]'
}
