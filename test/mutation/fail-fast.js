/**
 * Set-up file of the mutation suites: a mutant is killed by its first failing test, so once
 * one fails, the tests after it fail at once instead of running (jest's own `bail` exits the
 * process, which is Stryker's test runner), and the suites after it are not loaded at all
 * (`skip-after-kill.js`). A property that fails stops without shrinking its case.
 */
/* global afterEach, beforeEach, expect */
const { isKilled, markKilled } = require('./kill-marks');

const mutant = process.env.__STRYKER_ACTIVE_MUTANT__;

if (mutant !== undefined) {
  require('fast-check').configureGlobal({ ...require('fast-check').readConfigureGlobal(), endOnFailure: true });
  const circus = globalThis[Object.getOwnPropertySymbols(globalThis).find((symbol) => symbol.description === 'JEST_STATE_SYMBOL')];
  beforeEach(() => {
    if (isKilled(mutant)) throw new Error(`mutant ${mutant} was killed by an earlier test; this one does not run`);
  });
  afterEach(() => {
    if ((circus?.currentlyRunningTest?.errors.length ?? 0) > 0) markKilled(mutant, expect.getState().testPath);
  });
}
