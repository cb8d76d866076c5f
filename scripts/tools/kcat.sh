#!/usr/bin/env bash
# Prints the path of kcat, a Kafka client we did not write: the one on PATH, otherwise
# from Debian's kcat package.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
debian_tool kcat kcat
