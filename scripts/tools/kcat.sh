#!/usr/bin/env bash
# Prints the path of kcat, a Kafka client we did not write: the one on PATH, otherwise
# Debian's kcat package (needs root, as CI is).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

if ! command -v kcat >/dev/null; then
  [ "$(id -u)" = 0 ] || die "kcat is missing; install Debian's kcat package (apt-get install kcat)"
  log "installing Debian's kcat package"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends kcat; } >&2 \
    || die "apt-get could not install the kcat package"
fi
command -v kcat
