#!/usr/bin/env bash
# Prints the path of Chromium, the browser krt console's end-to-end test drives through
# Playwright: the one on PATH, otherwise from Debian's chromium package.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
debian_tool chromium chromium
