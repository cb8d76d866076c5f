#!/usr/bin/env bash
# Prints the path of promtool: the one on PATH, otherwise Debian's `prometheus`
# package, installed without its recommended extras (needs root, as CI is).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

if ! command -v promtool >/dev/null; then
  [ "$(id -u)" = 0 ] || die "promtool is missing; install Debian's prometheus package (apt-get install --no-install-recommends prometheus)"
  log "installing Debian's prometheus package for promtool"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus; } >&2 \
    || die "apt-get could not install the prometheus package"
fi
command -v promtool
