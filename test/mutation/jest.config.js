/**
 * The suites Stryker runs against each mutant: the in-memory suites of the runtime and the
 * plan (no broker, no child processes), so a mutant is judged in seconds.
 */
const { projects } = require('../../jest.config.js');
const unit = projects.find((project) => project.displayName === 'unit');

module.exports = {
  ...unit,
  displayName: undefined,
  testMatch: ['<rootDir>/test/runtime/**/*.test.ts', '<rootDir>/test/plan*.test.ts', '<rootDir>/test/review-plan.test.ts'],
};
