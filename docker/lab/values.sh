# shellcheck shell=bash
# The values a lab is made with, the same on Docker (make up, docker/lab.sh) and on Kubernetes (make
# k8s-render, deploy/kubernetes/render.sh): its mode, its approval limit, its ports from its slot, its
# lab-only secrets. Sourced by docker/lab/settings.sh (it needs common.sh); defines the defaults and
# functions only.

# The defaults: an exercise (nothing published); a run waits up to two minutes for an approval decision.
DEFAULT_LAB_MODE=exercise
DEFAULT_APPROVAL_TIMEOUT_SECONDS=120

# check_lab_mode MODE [WHAT]: exercise or demo, else dies; WHAT is the message's account of the modes.
check_lab_mode() {
  case "$1" in exercise | demo) ;; *) die "LAB_MODE=$1 is not a lab mode: ${2:-exercise or demo}" ;; esac
}

# check_approval_timeout SECONDS: how long a run waits for a decision, else dies.
check_approval_timeout() {
  in_range "$1" 1 3600 || die "APPROVAL_TIMEOUT_SECONDS=$1 is not a whole number of seconds from 1 to 3600"
}

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
    POSTGRES_PASSWORD | REDIS_PASSWORD) random_hex 24 ;;
    N8N_OWNER_EMAIL) echo "$2@soar-lab.test" ;;
    N8N_OWNER_PASSWORD) echo "Lab-$(random_hex 6)-Aa1" ;;
    CONSOLE_SECRET) random_hex 12 ;;
  esac
}
