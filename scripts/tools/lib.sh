# Shared settings for the tool scripts: one cache folder, keyed by version, so a
# second run fetches and builds nothing.
KRT_TOOLS_DIR="${KRT_TOOLS_DIR:-$HOME/.cache/kafka-retry-topology}"
MONGEY_PROVIDER_VERSION="0.13.1"
OPENTOFU_VERSION="1.10.7"
PINT_VERSION="0.60.0"
mkdir -p "$KRT_TOOLS_DIR"

# One tool script at a time on this machine: two test runs (or a unit suite and the broker
# set-up) building the same tool at once would overwrite each other's half-built files.
# The lock is held until the script exits; a cached tool is found in milliseconds.
# A cache folder this user cannot write (a shared one) still serves its tools, unlocked.
if { exec 9>"$KRT_TOOLS_DIR/.lock"; } 2>/dev/null; then flock 9; fi

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

# Installs Debian packages that are missing, through apt-get (needs root, as CI is);
# as another user, fails at once with the command to run.
debian_packages() {
  local missing=() package
  command -v dpkg-query >/dev/null || die "this is not a Debian-like system; install the equivalents of: $*"
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
  done
  [ "${#missing[@]}" = 0 ] && return 0
  [ "$(id -u)" = 0 ] || die "Debian's ${missing[*]} package(s) are missing; install them as root: apt-get install --no-install-recommends ${missing[*]}"
  log "installing Debian's ${missing[*]}"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >&2 \
    || die "apt-get could not install ${missing[*]}"
}

# Prints the path of a command, installing its Debian package first when it is missing.
debian_tool() {
  local command="$1" package="$2"
  command -v "$command" >/dev/null || debian_packages "$package"
  command -v "$command" || die "Debian's $package package did not provide $command"
}
