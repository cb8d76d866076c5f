#!/usr/bin/env bash
# Makes sure the optional Confluent client (@confluentinc/kafka-javascript) is built in
# this checkout's node_modules, and prints the librdkafka version it runs.
#
# `npm ci` drops an optional dependency whose install fails, and says nothing: the
# client's prebuilt binary is downloaded from the internet, and its fallback source
# build needs Debian's development libraries. So when the client does not load, this
# installs those libraries and a C/C++ toolchain (as root, through apt-get) and builds
# the client from source, linked against them (a few minutes, once).
#
#   scripts/tools/confluent.sh           build it if needed (the test set-up runs this)
#   scripts/tools/confluent.sh --check   only say whether it is built (npm ci runs this)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."

package=@confluentinc/kafka-javascript
loaded() { node -e "process.stdout.write(require('$package').librdkafkaVersion)" 2>/dev/null; }

if version="$(loaded)"; then
  [ "${1:-}" = --check ] && log "$package is built (librdkafka $version)" || echo "$version"
  exit 0
fi
if [ "${1:-}" = --check ]; then
  log "notice: npm did not build the optional $package (it skips a failed optional install without a word); npm test builds it on demand with scripts/tools/confluent.sh"
  exit 0
fi

log "$package is not built in node_modules (npm ci skips it without a word when its install fails); building it from source"
# node-gyp's toolchain, and the libraries librdkafka links against.
debian_packages g++ make python3 libssl-dev zlib1g-dev libzstd-dev libsasl2-dev liblz4-dev libcurl4-openssl-dev
wanted="$(node -p "require('./package.json').optionalDependencies['$package']")"
export CKJS_LINKING=dynamic npm_config_build_from_source=true
if [ -d "node_modules/$package" ]; then
  npm rebuild "$package" >&2 || die "npm rebuild $package failed (see above)"
else
  npm install --no-save --no-audit --no-fund --prefer-offline "$package@$wanted" >&2 || die "npm install $package@$wanted failed (see above)"
fi
version="$(loaded)" || die "$package was built but does not load: $(node -e "require('$package')" 2>&1 | head -5)"
log "$package built, librdkafka $version"
echo "$version"
