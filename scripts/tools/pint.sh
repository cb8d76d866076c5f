#!/usr/bin/env bash
# Prints the path of pint (Cloudflare's Prometheus rule linter), built once from its
# Go module and cached by version. (`go install ...@version` needs the module's version
# list, which the module proxy here does not serve, so it is built from a copy.)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cached_go_tool pint github.com/cloudflare/pint "$PINT_VERSION" ./cmd/pint
