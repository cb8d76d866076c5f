/**
 * Set-up file of the mutation suites: during Stryker's first run, which measures coverage,
 * it records which mutants each suite reaches (its imports, its hooks and its tests) in
 * `SUITES_FILE`, so that `related-suites.js` loads only those suites for a mutant. A suite
 * that never runs a mutant's code cannot tell the mutant from the original: leaving it out
 * loses no kill, and loading the two dozen suites that import a core module cost over a
 * minute per mutant on this machine.
 */
/* global expect, afterAll */
const fs = require('node:fs');
const { SUITES_FILE } = require('./suites-file');

/**
 * Read when counted, not when this file loads: Stryker's instrumented code makes the counters at
 * its first hit, so the first suite of the coverage run found none here and recorded nothing
 * (a mutant it reached with other suites was then judged by the others alone: session 55's run
 * of native-read-slots.ts left its own suite out of two mutants it kills).
 */
const coverageNow = () => globalThis.__stryker__?.mutantCoverage;

/** Every mutant counter, so that what this suite adds shows as a difference. */
function counters() {
  const coverage = coverageNow();
  const all = new Map();
  for (const [id, hits] of Object.entries(coverage?.static ?? {})) all.set(`${id} static`, hits);
  for (const [test, mutants] of Object.entries(coverage?.perTest ?? {})) {
    for (const [id, hits] of Object.entries(mutants)) all.set(`${id} ${test}`, hits);
  }
  return all;
}

/** Adds the mutants whose counters grew since `before` to what `suite` reached. */
function record(suite, before) {
  const reached = new Set();
  for (const [key, hits] of counters()) if (hits > (before.get(key) ?? 0)) reached.add(key.split(' ')[0]);
  const suites = fs.existsSync(SUITES_FILE) ? JSON.parse(fs.readFileSync(SUITES_FILE, 'utf8')) : {};
  for (const id of reached) suites[id] = [...new Set([...(suites[id] ?? []), suite])];
  fs.writeFileSync(SUITES_FILE, JSON.stringify(suites));
}

// Only the coverage run records (no active mutant); the mutant runs read it.
if (globalThis.__stryker__ && process.env.__STRYKER_ACTIVE_MUTANT__ === undefined) {
  // The previous suite's own afterAll hooks ran after its record: they count for it too.
  const previous = globalThis.__stryker__.previousSuite;
  if (previous) record(previous.suite, previous.counters);
  const before = counters(); // taken before this suite's own imports run
  const suite = expect.getState().testPath;
  afterAll(() => {
    record(suite, before);
    globalThis.__stryker__.previousSuite = { suite, counters: counters() };
  });
}
