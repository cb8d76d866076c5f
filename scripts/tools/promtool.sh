#!/usr/bin/env bash
# Prints the path of promtool: the one on PATH, otherwise from Debian's prometheus package.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
debian_tool promtool prometheus
