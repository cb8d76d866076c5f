import type fc from 'fast-check';

/**
 * The fast-check parameters of the runtime's property suites, from the environment:
 * `KRT_PROPERTY_RUNS` (cases per property), `KRT_PROPERTY_SEED` (a run of several seeds
 * finds what one seed's cases miss; a failure prints its seed), `KRT_PROPERTY_PATH` (with
 * the seed, replays one failing case and its shrinking from the printed path).
 */
export function propertyRuns(defaultRuns: number): { numRuns: number; seed?: number; path?: string } {
  const seed = process.env.KRT_PROPERTY_SEED;
  const path = process.env.KRT_PROPERTY_PATH;
  return {
    numRuns: Number(process.env.KRT_PROPERTY_RUNS ?? defaultRuns),
    ...(seed === undefined || seed === '' ? {} : { seed: Number(seed) }),
    ...(path === undefined || path === '' ? {} : { path }),
  };
}

/**
 * Wall-clock time one case of an async property may take: a backstop behind the
 * simulated-step budget of the fault world (a case takes tens of milliseconds; a loaded
 * machine, several times that). Past it the case fails with its counterexample.
 */
export const CASE_TIMEOUT_MS = 60_000;

export function asyncPropertyRuns(defaultRuns: number): fc.Parameters<unknown> {
  return { ...propertyRuns(defaultRuns), timeout: CASE_TIMEOUT_MS };
}

/** Below this many cases a share says little: the mutation runs take ten per property. */
const RUNS_FOR_A_SHARE = 50;

/**
 * Whether enough of a property's cases exercised what it is about (`hit` of `runs`): a case
 * that exercised nothing tests nothing of it. At least `share` of them at the counts `npm test`
 * runs; at the few cases of a mutation run (a fixed seed's ten), at least one, as a share of
 * ten cases is one case's luck (faults.test.ts's lowered limit bit 1 of 10, and failed the
 * mutation run's dry run).
 */
export function expectEnoughCasesHit(hit: number, runs: number, share: number): void {
  if (runs >= RUNS_FOR_A_SHARE) expect(hit / runs).toBeGreaterThan(share);
  else expect(hit).toBeGreaterThan(0);
}
