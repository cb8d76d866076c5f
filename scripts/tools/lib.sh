# Shared settings for the tool scripts: one cache folder, keyed by version, so a
# second run fetches and builds nothing.
KRT_TOOLS_DIR="${KRT_TOOLS_DIR:-$HOME/.cache/kafka-retry-topology}"
MONGEY_PROVIDER_VERSION="0.13.1"
OPENTOFU_VERSION="1.10.7"
PINT_VERSION="0.60.0"
mkdir -p "$KRT_TOOLS_DIR"

log() { printf '[krt-tools] %s\n' "$*" >&2; }
die() { printf '[krt-tools] error: %s\n' "$*" >&2; exit 1; }

# Builds a Go main package from a module version in a writable copy: modules with
# replace directives refuse `go install module@version`.
go_build_module() {
  local module="$1" version="$2" pkg="$3" out="$4"
  command -v go >/dev/null || die "Go is not installed; install Go 1.24 or newer to build $module"
  local dir
  dir=$(go mod download -json "$module@$version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  [ -n "$dir" ] || die "could not download $module@$version through the Go module proxy"
  local work
  work=$(mktemp -d)
  cp -r "$dir/." "$work/"
  chmod -R u+w "$work"
  log "building $module@$version (this takes a minute or two the first time)"
  (cd "$work" && go build -trimpath -o "$out" "$pkg") || die "go build of $module@$version failed"
  rm -rf "$work"
}

# Prints the path of a Go tool built once into the cache folder, keyed by version.
cached_go_tool() {
  local name="$1" module="$2" version="$3" pkg="$4"
  local binary="$KRT_TOOLS_DIR/$name-$version/$name"
  if [ ! -x "$binary" ]; then
    mkdir -p "$(dirname "$binary")"
    go_build_module "$module" "v$version" "$pkg" "$binary.tmp"
    mv "$binary.tmp" "$binary"
  fi
  echo "$binary"
}

# Prints the path of a command, installing its Debian package first when it is missing
# (needs root, as CI is).
debian_tool() {
  local command="$1" package="$2"
  if ! command -v "$command" >/dev/null; then
    [ "$(id -u)" = 0 ] || die "$command is missing; install Debian's $package package (apt-get install --no-install-recommends $package)"
    log "installing Debian's $package package for $command"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$package"; } >&2 \
      || die "apt-get could not install the $package package"
  fi
  command -v "$command"
}
