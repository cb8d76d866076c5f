/**
 * Jest's test runner for the mutation runs: jest's own, except that once a test has killed the
 * active mutant (`fail-fast.js`), each suite left is reported as one skipped test instead of
 * being loaded. Loading a runtime suite costs a few hundred milliseconds even when its tests
 * stop at once, and a core module's mutant reaches over a hundred of them: that, not the
 * tests, made a killed mutant cost a minute.
 */
const { createEmptyTestResult } = require('@jest/test-result');
const TestRunner = require('jest-runner').default;
const { isKilled } = require('./kill-marks');

module.exports = class SkipAfterKill extends TestRunner {
  #listeners = new Map();

  on(eventName, listener) {
    this.#listeners.set(eventName, [...(this.#listeners.get(eventName) ?? []), listener]);
    return super.on(eventName, listener);
  }

  async runTests(tests, watcher, options) {
    const mutant = process.env.__STRYKER_ACTIVE_MUTANT__;
    if (!options.serial || mutant === undefined) return super.runTests(tests, watcher, options);
    for (const test of tests) {
      if (isKilled(mutant)) await this.#reportNotLoaded(test);
      else await super.runTests([test], watcher, options);
    }
  }

  /** One skipped test stands for the suite: jest takes a suite with no test for a failure. */
  async #reportNotLoaded(test) {
    const title = 'not loaded: the mutant was killed by an earlier suite';
    const skipped = { ancestorTitles: [], duration: 0, failureDetails: [], failureMessages: [], fullName: title, numPassingAsserts: 0, status: 'pending', title };
    const result = { ...createEmptyTestResult(), numPendingTests: 1, testFilePath: test.path, testResults: [skipped] };
    for (const listener of this.#listeners.get('test-file-start') ?? []) await listener([test]);
    for (const listener of this.#listeners.get('test-file-success') ?? []) await listener([test, result]);
  }
};
