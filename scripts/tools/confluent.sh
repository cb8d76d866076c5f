#!/usr/bin/env bash
# Makes sure the optional Confluent client (@confluentinc/kafka-javascript) loads on the
# Node on the PATH, and prints the librdkafka version it runs.
#
# `npm ci` drops an optional dependency whose install fails, and says nothing: the
# client's prebuilt binary is downloaded from the internet, and its fallback source
# build needs Debian's development libraries. And its native addon is built for one Node
# ABI, while the suite runs on several Node lines (scripts/tools/node-matrix.sh). So when
# the client does not load, this installs those libraries and a C/C++ toolchain (as root,
# through apt-get), builds the addon from source for this Node's ABI in a scratch copy
# (linked against Debian's libraries; a few minutes, once per ABI), caches it, and puts it
# where the package's loader (the `bindings` package) looks for one ABI among several:
#
#   lib/binding/node-v<ABI>-linux-x64/confluent-kafka-javascript.node  one per ABI
#   lib/binding/deps/librdkafka.so.1, librdkafka++.so.1                 shared by them (the addon's RUNPATH is $ORIGIN/../deps)
#
# `bindings` tries build/Release first, so an addon that npm built there, for another
# ABI, would stop this one loading: it moves to lib/binding/node-v<its ABI>-linux-x64,
# where the Node it was built for still finds it.
#
#   scripts/tools/confluent.sh           build it if needed (the test set-up runs this)
#   scripts/tools/confluent.sh --check   only say whether it loads (npm ci runs this)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node-addon.sh"
cd "$(dirname "$0")/../.."

package=@confluentinc/kafka-javascript
dir="node_modules/$package"
addon=confluent-kafka-javascript.node
loaded() { node -e "process.stdout.write(require('$package').librdkafkaVersion)" 2>/dev/null; }

if version="$(loaded)"; then
  [ "${1:-}" = --check ] && log "$package loads on Node $(node --version) (librdkafka $version)" || echo "$version"
  exit 0
fi
if [ "${1:-}" = --check ]; then
  log "notice: $package does not load on Node $(node --version) (npm skips a failed optional install without a word); npm test builds it on demand with scripts/tools/confluent.sh"
  exit 0
fi

wanted="$(node -p "require('./package.json').optionalDependencies['$package']")"
if [ ! -f "$dir/package.json" ]; then
  # Its files only: the build below is ours.
  log "$package is not in node_modules (npm ci skips it without a word when its install fails); installing its files"
  npm install --no-save --no-audit --no-fund --prefer-offline --ignore-scripts "$package@$wanted" >&2 || die "npm install $package@$wanted failed (see above)"
fi

abi="$(node_abi)"
platform="$(node -p 'process.platform + "-" + process.arch')"
cache="$KRT_TOOLS_DIR/confluent-$wanted/lib/binding"
if [ -f "$cache/node-v$abi-$platform/$addon" ] && ! addon_matches_node "$cache/node-v$abi-$platform/$addon"; then
  log "the cached build of $package for ABI $abi was built for another Node; building it again"
  rm -f "$cache/node-v$abi-$platform/$addon"
fi
if [ ! -f "$cache/node-v$abi-$platform/$addon" ]; then
  log "building $package for Node $(node --version) (ABI $abi) from source, once"
  # node-gyp's toolchain, and the libraries librdkafka links against.
  debian_packages g++ make python3 libssl-dev zlib1g-dev libzstd-dev libsasl2-dev liblz4-dev libcurl4-openssl-dev
  scratch="$KRT_TOOLS_DIR/confluent-$wanted/build-node-v$abi"
  # Its default, static linking, downloads the libraries' sources; dynamic links Debian's.
  build_addon "$package@$wanted" "$scratch" CKJS_LINKING=dynamic || die "node-gyp could not build $package for Node $(node --version) (see above)"
  for lib in librdkafka.so.1 librdkafka++.so.1; do install_file "$scratch/build/deps/$lib" "$cache/deps/$lib"; done
  install_file "$scratch/build/Release/$addon" "$cache/node-v$abi-$platform/$addon"
  rm -rf "$scratch"
fi

# The shared libraries first, then the addon that needs them.
for lib in librdkafka.so.1 librdkafka++.so.1; do install_file "$cache/deps/$lib" "$dir/lib/binding/deps/$lib"; done
install_file "$cache/node-v$abi-$platform/$addon" "$dir/lib/binding/node-v$abi-$platform/$addon"

# An addon in build/Release (npm's own build, for another ABI) is found first: move it to
# its ABI's folder. Node's refusal names the ABI it was built for.
if [ -f "$dir/build/Release/$addon" ]; then
  refusal="$(node -e "require('./$dir/build/Release/$addon')" 2>&1 || true)"
  other="$(grep -oE 'NODE_MODULE_VERSION [0-9]+' <<<"$refusal" | head -1 | grep -oE '[0-9]+' || true)"
  [ -n "$other" ] || die "$dir/build/Release/$addon does not load on Node $(node --version) and its ABI is unknown: $(head -3 <<<"$refusal"); delete it and run this again"
  log "moving npm's build of $package for ABI $other out of build/Release, to lib/binding/node-v$other-$platform"
  mkdir -p "$dir/lib/binding/node-v$other-$platform"
  mv -f "$dir/build/Release/$addon" "$dir/lib/binding/node-v$other-$platform/$addon"
fi

version="$(loaded)" || die "$package was built for Node $(node --version) but does not load: $(node -e "require('$package')" 2>&1 | head -5)"
log "$package loads on Node $(node --version) (ABI $abi), librdkafka $version"
echo "$version"
