#!/usr/bin/env bash
# What `npm test` runs after the type check: jest on every Node line the project supports,
# each on the exact version scripts/tools/node.sh pins (installed once when missing):
#   Node 24: every suite, unit and broker (jest.config.js);
#   Node 26 (the active LTS since October 2026), Node 22 and Node 20: the runtime's suites
#   (jest.runtime.config.js), the code a service runs in production. The generator, the CLI
#   and the broker suites run on Node 24 alone.
# A line is one or two jest runs (passes_of below), its counts their sum. Each jest runs
# with that Node first on the PATH, so what a test spawns (npx, jiti, npm) runs on it too.
# Every line runs even when one fails; the last line sums them up and the exit status is
# non-zero when any line failed. Arguments go to jest on every run (`npm test -- -t ladder`);
# a run that they leave without a suite passes.
#
#   scripts/tools/node-matrix.sh [jest arguments]
#   scripts/tools/node-matrix.sh --plan    prints "<line> <version> <jest config> <node binary>" per line, runs nothing
set -uo pipefail # no -e: one line failing does not stop the others
cd "$(dirname "$0")/../.."

# "<Node line> <jest config> [NODE_OPTIONS]", in the order they run. Node 24 runs with
# --experimental-vm-modules, with which jest can require() @platformatic/kafka, an ES module
# (test/kafka/clients.ts says the rule). README.md ("Prerequisites") and
# package.json "engines" say the same; test/readme-node.test.ts holds them to it.
MATRIX=(
  "24 jest.config.js --experimental-vm-modules"
  "26 jest.runtime.config.js"
  "22 jest.runtime.config.js"
  "20 jest.runtime.config.js"
)

# The jest runs of each config, one after another, their counts summed into the line's:
# the unit and runtime suites (CPU work on the in-memory broker) on every core at once; the
# broker suites one at a time, as they share one broker, which some of them restart.
passes_of() {
  case "$1" in
    jest.config.js) printf '%s\n' '--selectProjects unit --maxWorkers=100%' '--selectProjects broker --maxWorkers=1' ;;
    *) printf '%s\n' '--maxWorkers=100%' ;;
  esac
}

say() { printf '\n== %s\n' "$*" >&2; }

if [ "${1:-}" = --plan ]; then
  for entry in "${MATRIX[@]}"; do
    read -r line config _ <<<"$entry"
    node="$(bash scripts/tools/node.sh "$line")" || exit 1
    echo "$line $("$node" --version) $config $node"
  done
  exit 0
fi

results=()
failed_lines=0
total_passed=0
total_failed=0
for entry in "${MATRIX[@]}"; do
  read -r line config node_options <<<"$entry"
  if ! node="$(bash scripts/tools/node.sh "$line")"; then
    results+=("Node $line: not run (scripts/tools/node.sh $line failed, see above)")
    failed_lines=$((failed_lines + 1))
    continue
  fi
  version="$("$node" --version)"
  scope="every suite"
  [ "$config" = jest.runtime.config.js ] && scope="the runtime suites"
  # Arguments (a test path, -t NAME) may leave a pass without a suite; that pass passes.
  extra=()
  [ $# -gt 0 ] && extra=(--passWithNoTests)
  say "Node $version: $scope ($config)"
  passed=0 failed=0 broken=0 line_failed=0 no_result=""
  while read -r pass; do
    report="$(mktemp)"
    # KRT_NODE_LINE: the line this run is meant to be on (test/runtime/node-line.test.ts checks it).
    # shellcheck disable=SC2086 # a pass is words
    PATH="$(dirname "$node"):$PATH" KRT_NODE_LINE="$line" NODE_OPTIONS="${NODE_OPTIONS:-} ${node_options:-}" "$node" node_modules/jest/bin/jest.js --config "$config" $pass --json --outputFile "$report" "${extra[@]}" "$@" </dev/null
    status=$?
    # jest's JSON report, read by the same Node: tests passed and failed, and suites that failed to run.
    counts="$("$node" -e '
      const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
      console.log(r.numPassedTests, r.numFailedTests, r.numRuntimeErrorTestSuites);
    ' "$report" 2>/dev/null)" || counts=""
    rm -f "$report"
    if [ -z "$counts" ]; then
      no_result+=" (jest $pass gave no result, exit status $status, see above)"
      line_failed=1
      continue
    fi
    read -r p f b <<<"$counts"
    passed=$((passed + p)) failed=$((failed + f)) broken=$((broken + b))
    [ "$status" -ne 0 ] && line_failed=1
  done < <(passes_of "$config")
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
  result="Node $version, $scope: $passed passed, $failed failed"
  [ "$broken" -gt 0 ] && result+=", $broken suites failed to run"
  result+="$no_result"
  [ "$line_failed" -ne 0 ] && failed_lines=$((failed_lines + 1)) && [ -z "$no_result" ] && result+=" (jest exit status non-zero)"
  results+=("$result")
done

say "results per Node line"
printf '%s\n' "${results[@]}"
summary="All Node lines: $total_passed passed, $total_failed failed"
# A line can fail with no failed test (a suite that did not compile, a set-up that threw).
[ "$failed_lines" -gt 0 ] && summary+="; $failed_lines of ${#MATRIX[@]} Node lines failed"
echo "$summary"
[ "$failed_lines" = 0 ]
