/**
 * Set-up file of the mutation suites: every test timeout five times what the suite asks.
 * Stryker's coverage run loads every suite into one process with its instrumentation (no jest
 * workers there), and that process slows as it grows: a property that takes 5 s alone (attack
 * 15's recreated tier) passed its 120 s there, and tests at jest's default 5 s timed out, failing
 * the coverage run and with it the whole mutation run. A mutant that hangs is still stopped by
 * Stryker's own timeout (`timeoutMS` past the time its tests took in the coverage run).
 */
const SCALE = 5;
// Where `jest.setTimeout()` stores a suite's timeout, and jest-circus reads it when the suite starts.
const TIMEOUT = Symbol.for('TEST_TIMEOUT_SYMBOL');
let timeout = globalThis[TIMEOUT];
Object.defineProperty(globalThis, TIMEOUT, {
  configurable: true,
  get: () => timeout,
  set: (ms) => {
    timeout = typeof ms === 'number' ? ms * SCALE : ms;
  },
});

module.exports = { SCALE };
