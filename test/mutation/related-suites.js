/**
 * Jest's `filter` for the mutation runs: the suites that reached the active mutant in
 * Stryker's coverage run (recorded by `suite-coverage.js`), else every suite given.
 * Stryker already runs only the tests that cover a mutant, but jest would load every suite
 * that imports the mutated file to find them; this keeps it to the suites that hold one.
 */
const fs = require('node:fs');
const { SUITES_FILE } = require('./suites-file');

let suitesByMutant;

module.exports = async function relatedSuites(testPaths) {
  const mutant = process.env.__STRYKER_ACTIVE_MUTANT__;
  if (mutant === undefined) return { filtered: testPaths }; // the coverage run: every suite
  suitesByMutant ??= fs.existsSync(SUITES_FILE) ? JSON.parse(fs.readFileSync(SUITES_FILE, 'utf8')) : {};
  const reached = suitesByMutant[mutant];
  if (!reached) return { filtered: testPaths };
  const keep = new Set(reached);
  return { filtered: testPaths.filter((test) => keep.has(test)) };
};
