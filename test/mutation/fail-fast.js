/**
 * Set-up file of the mutation suites: a mutant is killed by its first failing test, so once
 * one fails, the tests after it fail at once instead of running (jest's own `bail` exits the
 * process, which is Stryker's test runner). The mark is a file in the sandbox, as the
 * suites share no memory; a property that fails stops without shrinking its case.
 */
/* global afterEach, beforeEach */
const fs = require('node:fs');
const path = require('node:path');

const mutant = process.env.__STRYKER_ACTIVE_MUTANT__;
const KILLED_FILE = path.join(process.cwd(), '.mutation-killed');

if (mutant !== undefined) {
  require('fast-check').configureGlobal({ ...require('fast-check').readConfigureGlobal(), endOnFailure: true });
  const circus = globalThis[Object.getOwnPropertySymbols(globalThis).find((symbol) => symbol.description === 'JEST_STATE_SYMBOL')];
  const killed = () => fs.existsSync(KILLED_FILE) && fs.readFileSync(KILLED_FILE, 'utf8') === mutant;
  beforeEach(() => {
    if (killed()) throw new Error(`mutant ${mutant} was killed by an earlier test; this one does not run`);
  });
  afterEach(() => {
    if ((circus?.currentlyRunningTest?.errors.length ?? 0) > 0) fs.writeFileSync(KILLED_FILE, mutant);
  });
}
