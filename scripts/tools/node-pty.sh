#!/usr/bin/env bash
# Makes sure cdktf-cli's pseudo-terminal addon (@cdktf/node-pty-prebuilt-multiarch) loads
# on the Node on the PATH. cdktf-cli loads it at start, for every command (`cdktf synth`
# too), and the package ships prebuilt binaries only up to Node 22 (ABI 127): on Node 24
# `npx cdktf` dies with "Cannot find module '../build/Release/pty.node'". So this builds
# it from its sources (one C++ file, seconds) with a C++ toolchain, caches it per ABI, and
# adds it to the package's prebuilds/ folder under the name its loader looks for
# (prebuilds/linux-x64/node.abi<ABI>.node); the binaries already there stay untouched.
#
#   scripts/tools/node-pty.sh      prints the path of the binary that loads
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node-addon.sh"
cd "$(dirname "$0")/../.."

package=@cdktf/node-pty-prebuilt-multiarch
dir="node_modules/$package"
[ -d "$dir" ] || die "$package is not in node_modules (cdktf-cli depends on it); run npm ci"
loads() { node -e "require('$package'); process.stdout.write(require('$package/lib/prebuild-file-path').ptyPath || 'build/Release/pty.node')" 2>/dev/null; }

if where="$(loads)"; then
  echo "$where"
  exit 0
fi

abi="$(node_abi)"
version="$(node -p "require('./$dir/package.json').version")"
platform="$(node -p 'process.platform + "-" + process.arch')"
name="node.abi$abi.node"
cached="$KRT_TOOLS_DIR/node-pty-$version/$platform/$name"
if [ ! -f "$cached" ]; then
  debian_packages g++ make python3
  scratch="$KRT_TOOLS_DIR/node-pty-$version/build-abi$abi"
  build_addon "$package@$version" "$scratch" || die "node-gyp could not build $package for Node $(node --version) (see above)"
  mkdir -p "$(dirname "$cached")"
  install_file "$scratch/build/Release/pty.node" "$cached"
  rm -rf "$scratch"
fi
install_file "$cached" "$dir/prebuilds/$platform/$name"
where="$(loads)" || die "$package was built for Node $(node --version) but does not load: $(node -e "require('$package')" 2>&1 | head -5)"
log "$package built for Node $(node --version) (ABI $abi)"
echo "$where"
