/**
 * Runs the smallest suites first: the unit suites of a module, which kill most of its
 * mutants in milliseconds, before the property and soak suites (with `fail-fast.js`, the
 * later ones then stop at their first test).
 */
const fs = require('node:fs');
const Sequencer = require('@jest/test-sequencer').default;

module.exports = class SmallestFirst extends Sequencer {
  sort(tests) {
    const size = (test) => fs.statSync(test.path).size;
    return [...tests].sort((a, b) => size(a) - size(b) || (a.path < b.path ? -1 : 1));
  }
};
