#!/usr/bin/env bash
# Prints the path of a Terraform-compatible CLI: `terraform` when it is on PATH,
# otherwise OpenTofu built once from its Go module and cached by version.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

if command -v terraform >/dev/null; then
  command -v terraform
  exit 0
fi
cached_go_tool tofu github.com/opentofu/opentofu "$OPENTOFU_VERSION" ./cmd/tofu
