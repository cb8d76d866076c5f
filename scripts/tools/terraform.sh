#!/usr/bin/env bash
# Prints the path of a Terraform-compatible CLI: `terraform` when it is on PATH,
# otherwise OpenTofu built once from its Go module and cached by version.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

if command -v terraform >/dev/null; then
  command -v terraform
  exit 0
fi
tofu="$KRT_TOOLS_DIR/opentofu-$OPENTOFU_VERSION/tofu"
if [ ! -x "$tofu" ]; then
  mkdir -p "$(dirname "$tofu")"
  go_build_module github.com/opentofu/opentofu "v$OPENTOFU_VERSION" ./cmd/tofu "$tofu.tmp"
  mv "$tofu.tmp" "$tofu"
fi
echo "$tofu"
