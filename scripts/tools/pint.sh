#!/usr/bin/env bash
# Prints the path of pint (Cloudflare's Prometheus rule linter), built once from its
# Go module and cached by version. (`go install ...@version` needs the module's version
# list, which the module proxy here does not serve, so it is built from a copy.)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pint="$KRT_TOOLS_DIR/pint-$PINT_VERSION/pint"
if [ ! -x "$pint" ]; then
  mkdir -p "$(dirname "$pint")"
  go_build_module github.com/cloudflare/pint "v$PINT_VERSION" ./cmd/pint "$pint.tmp"
  mv "$pint.tmp" "$pint"
fi
echo "$pint"
