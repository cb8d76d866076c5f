/**
 * Runs first the suites that have killed the most mutants so far in this `stryker run`
 * (neighbouring mutants of a function tend to fall to the same suite), then the smallest: the
 * unit suites of a module, which kill most of its mutants in milliseconds, before the property
 * and soak suites. With `fail-fast.js` and `skip-after-kill.js`, the suites after the one that
 * kills a mutant are not loaded.
 */
const fs = require('node:fs');
const Sequencer = require('@jest/test-sequencer').default;
const { killsBySuite } = require('./kill-marks');

module.exports = class SmallestFirst extends Sequencer {
  sort(tests) {
    const kills = killsBySuite();
    const killed = (test) => kills[test.path] ?? 0;
    const size = (test) => fs.statSync(test.path).size;
    return [...tests].sort((a, b) => killed(b) - killed(a) || size(a) - size(b) || (a.path < b.path ? -1 : 1));
  }
};
