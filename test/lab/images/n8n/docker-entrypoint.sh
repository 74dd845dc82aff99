#!/bin/sh
# TEST INFRASTRUCTURE ONLY (test/lab/images): the entrypoint of the look-alike of n8nio/n8n:2.41.1,
# behaving as n8n 2.x's docker/images/n8n/docker-entrypoint.sh: trust /opt/custom-certificates when
# mounted, then run n8n with the given arguments (`worker`, `import:workflow ...`) or none.
if [ -d /opt/custom-certificates ]; then
  echo "Trusting custom certificates from /opt/custom-certificates."
  export NODE_OPTIONS="--use-openssl-ca $NODE_OPTIONS"
  export SSL_CERT_DIR=/opt/custom-certificates
  c_rehash /opt/custom-certificates
fi
if [ "$#" -gt 0 ]; then
  exec n8n "$@"
else
  exec n8n
fi
