// @ts-check
/**
 * `npm run mutation`: mutation testing of the runtime's record-keeping core and the plan
 * guards, judged by the unit suites on the in-memory broker (test/mutation/jest.config.js).
 * The score and the mutants that survive are in docs/development.md.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  packageManager: 'npm',
  testRunner: 'jest',
  jest: { projectType: 'custom', configFile: 'test/mutation/jest.config.js', enableFindRelatedTests: true },
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  coverageAnalysis: 'perTest',
  concurrency: 1,
  timeoutMS: 10_000,
  // The coverage run holds every in-memory suite in one instrumented process: 9 minutes or more
  // on the shared machine, past Stryker's default of 5.
  dryRunTimeoutMinutes: 40,
  mutate: [
    'src/runtime/partition-progress.ts',
    'src/runtime/offset-committer.ts',
    'src/runtime/main-pipeline.ts',
    'src/runtime/resume-anchor.ts',
    'src/runtime/key-parking.ts',
    // Split out of key-parking.ts: its budget, its tier partitions' kept positions, its commits,
    // how it judges a tier record and what it has parked.
    'src/runtime/parking-budget.ts',
    'src/runtime/tier-position.ts',
    'src/runtime/parking-commits.ts',
    'src/runtime/tier-copy-judgement.ts',
    'src/runtime/tier-record-verdict.ts',
    'src/runtime/parked-records.ts',
    'src/runtime/parking-log-start.ts',
    'src/runtime/parking-hold-expiry.ts',
    'src/runtime/sought-back.ts',
    'src/runtime/parking-seek-back.ts',
    'src/runtime/seek-until-read.ts',
    'src/runtime/park-state.ts',
    'src/runtime/resolve.ts',
    'src/runtime/due-time.ts',
    'src/runtime/publish-loop.ts',
    'src/plan/guards.ts',
  ],
  // The tests read generated/, examples/ and the topologies: only output and reports stay out of the sandbox.
  ignorePatterns: ['dist', 'reports', 'cdktf.out', '.mutation-*'],
  // event-recorder: a file per mutant judged, so a run cut short keeps what it judged (`npm run mutation:so-far`).
  reporters: ['clear-text', 'progress', 'json', 'event-recorder'],
  eventReporter: { baseDir: 'reports/mutation/events' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 85, break: null },
};
