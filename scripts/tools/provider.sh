#!/usr/bin/env bash
# Builds the Mongey/kafka Terraform provider from its Go module into a filesystem
# mirror, and writes the CLI config that points Terraform/OpenTofu at it.
# Prints the absolute path of that config (use it as TF_CLI_CONFIG_FILE).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

command -v go >/dev/null || die "Go is not installed; install Go 1.24 or newer (Debian's golang-go is too old) to build the Mongey/kafka provider"
mirror="$KRT_TOOLS_DIR/provider-mirror"
platform="$(go env GOOS)_$(go env GOARCH)"
target="$mirror/registry.terraform.io/mongey/kafka/$MONGEY_PROVIDER_VERSION/$platform"
binary="$target/terraform-provider-kafka_v$MONGEY_PROVIDER_VERSION"

if [ ! -x "$binary" ]; then
  mkdir -p "$target"
  go_build_module github.com/Mongey/terraform-provider-kafka "v$MONGEY_PROVIDER_VERSION" . "$binary.tmp"
  mv "$binary.tmp" "$binary"
fi

tfrc="$KRT_TOOLS_DIR/terraform.tfrc"
cat > "$tfrc" <<TFRC
provider_installation {
  filesystem_mirror {
    path    = "$mirror"
    include = ["registry.terraform.io/mongey/kafka"]
  }
}
TFRC
echo "$tfrc"
