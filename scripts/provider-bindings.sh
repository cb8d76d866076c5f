#!/usr/bin/env bash
# Regenerates the cdktf bindings of the Mongey/kafka provider under
# src/emitters/terraform/.gen from the provider's real schema.
#
#   scripts/provider-bindings.sh            reuse the committed schema cache (no Terraform, no Go)
#   scripts/provider-bindings.sh --refresh  build the provider from its Go module and re-read its schema
#
# The provider version is pinned in cdktf.json and scripts/tools/lib.sh; change both together.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=src/emitters/terraform/.schema-cache
mkdir -p "$cache"
if [ "${1:-}" = "--refresh" ]; then
  TF_CLI_CONFIG_FILE="$(bash scripts/tools/provider.sh)"
  export TF_CLI_CONFIG_FILE
  bash scripts/tools/terraform.sh >/dev/null
  rm -f "$cache"/*.json
elif [ -n "${1:-}" ]; then
  echo "usage: scripts/provider-bindings.sh [--refresh]" >&2
  exit 2
fi
export CHECKPOINT_DISABLE=1 CDKTF_DISABLE_TELEMETRY=1
npx cdktf get --force --experimental-provider-schema-cache-path "$cache"
