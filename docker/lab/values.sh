# shellcheck shell=bash
# The values a lab is made with, the same on Docker (make up, docker/lab.sh) and on Kubernetes (make
# k8s-render, deploy/kubernetes/render.sh): its mode, its approval limit and whether starters are allowed
# (their defaults and checks: settings.generated.sh, written from app/lab-settings/settings.ts), its ports
# from its slot, its lab-only secrets. Sourced by docker/lab/settings.sh (it needs common.sh); defines the
# defaults and functions only.

# shellcheck source=settings.generated.sh
. "$ROOT/docker/lab/settings.generated.sh"

# check_public_origin ORIGIN: LAB_PUBLIC_ORIGIN, the https:// origin of a TLS proxy in front of the lab,
# without a port or a path (the proxy serves each lab on the lab's own port numbers), else dies. The same
# rule as app/service-kit/public-origin.ts.
check_public_origin() {
  [[ $1 =~ ^https://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?)/?$ ]] ||
    die "LAB_PUBLIC_ORIGIN=$1 is not an https:// origin without a port or a path (e.g. https://lab.example.org): the TLS proxy serves each lab on the lab's own ports"
}

# A lab's slot s gives its defaults: the /24 network 172.30.(66+s).0, the editor port 5678+s and the
# console port 8088+s.
slot_subnet() { echo "172.30.$((66 + $1)).0/24"; }
slot_editor_port() { echo "$((5678 + $1))"; }
slot_console_port() { echo "$((8088 + $1))"; }

# lab_secret NAME LOGIN: a new value for one of a lab's secrets (LOGIN names n8n's owner). Lab-only, never
# a production credential.
lab_secret() {
  case "$1" in
    N8N_ENCRYPTION_KEY) random_hex 32 ;;
    POSTGRES_PASSWORD) random_hex 24 ;;
    N8N_OWNER_EMAIL) echo "$2@soar-lab.test" ;;
    N8N_OWNER_PASSWORD) echo "Lab-$(random_hex 6)-Aa1" ;;
    CONSOLE_SECRET) random_hex 12 ;;
  esac
}
