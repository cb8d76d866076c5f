/**
 * The suites Stryker runs against each mutant: the in-memory suites of the runtime and the
 * plan (no broker, no child processes), so a mutant is judged in seconds. Per mutant, jest
 * loads only the suites that reached it in the coverage run (`related-suites.js`), the
 * suites that killed the most mutants so far first, then the smallest (`smallest-first.js`),
 * and stops at the first test that fails (`fail-fast.js`), loading no suite after it
 * (`skip-after-kill.js`).
 */
const { projects } = require('../../jest.config.js');
const unit = projects.find((project) => project.displayName === 'unit');

// A property suite runs all its cases for every mutant it reaches; ten keep a mutant to
// seconds (npm test runs the full count). A mutant only more cases would find is
// reported as surviving, never hidden. KRT_PROPERTY_RUNS, when set, still rules.
process.env.KRT_PROPERTY_RUNS ??= '10';
// One seed for every run: each mutant meets the cases the coverage run measured, and a
// property that asks for at least one case of its kind among ten gets the same ten each
// time (at a random seed attack 15's recreated-tier property drew none, and failed the dry run).
process.env.KRT_PROPERTY_SEED ??= '1';

// KRT_MUTATION_SUITES, when set, is a pattern of the suites' paths: only the in-memory suites
// it matches run, the coverage run too (for a file whose own suites judge it, when the coverage
// run over every suite would take longer than the time there is). A mutant those suites miss is
// reported as surviving, and is checked by hand against the other suites before it is called a gap.
const only = process.env.KRT_MUTATION_SUITES;

module.exports = {
  ...unit,
  displayName: undefined,
  testMatch: ['<rootDir>/test/runtime/**/*.test.ts', '<rootDir>/test/plan*.test.ts', '<rootDir>/test/review-plan.test.ts'],
  ...(only ? { testPathIgnorePatterns: [...(unit.testPathIgnorePatterns ?? []), `^(?!.*(${only})).*$`] } : {}),
  setupFilesAfterEnv: [...unit.setupFilesAfterEnv, '<rootDir>/test/mutation/scaled-timeouts.js', '<rootDir>/test/mutation/suite-coverage.js', '<rootDir>/test/mutation/fail-fast.js'],
  // Five times jest's default, as scaled-timeouts.js scales the timeouts suites set.
  testTimeout: 25_000,
  filter: '<rootDir>/test/mutation/related-suites.js',
  testSequencer: '<rootDir>/test/mutation/smallest-first.js',
  runner: '<rootDir>/test/mutation/skip-after-kill.js',
};
