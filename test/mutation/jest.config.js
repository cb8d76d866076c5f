/**
 * The suites Stryker runs against each mutant: the unit project alone (the in-memory
 * broker, no global set-up), so a mutant is judged in seconds, not after a broker starts.
 */
const { projects } = require('../../jest.config.js');
const unit = projects.find((project) => project.displayName === 'unit');

module.exports = { ...unit, displayName: undefined };
