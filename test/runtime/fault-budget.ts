/**
 * A run of the simulated world that stops making progress is a stall: a consumer that
 * waits for good, or a loop of seeks, resumes or timers that never hands a record over.
 * In the simulation nothing else can unstick it, so instead of spinning to the broker's
 * step limit (minutes a case, hours once fast-check shrinks it) the run fails at once,
 * saying what never happened.
 */
export interface StallBudget {
  /** Simulation steps (a delivery, or the clock moved to its next timer) in a row that change nothing a user could see. */
  readonly steps: number;
  /** Simulated time that may pass without progress: longer than the longest legitimate wait. */
  readonly ms: number;
}

/** Thrown when a run exceeds its budget; the message says which records never reached their fate and what was paused. */
export class StallError extends Error {
  override name = 'StallError';
}

/**
 * Watches a run's progress: `signature` summarises everything a user could see (handler
 * calls, records written, commits); `check()` is called every step and throws a
 * StallError built by `describe` once the signature has not changed for the budget.
 */
export function stallWatch(budget: StallBudget, now: () => number, signature: () => string, describe: (why: string) => string) {
  let last = signature();
  let since = 0;
  let sinceMs = now();
  let steps = 0;
  let longest = 0;
  return {
    /** The longest run of steps without progress so far (to size the budget by). */
    get longestIdle(): number {
      return longest;
    },
    /** One step of the simulation; throws a StallError when the budget is spent. */
    check(phase: string): void {
      steps++;
      const current = signature();
      if (current !== last) {
        last = current;
        since = 0;
        sinceMs = now();
        return;
      }
      since++;
      longest = Math.max(longest, since);
      const idleMs = now() - sinceMs;
      if (since > budget.steps) throw new StallError(describe(`${phase}: ${since} steps in a row without progress (budget ${budget.steps}; ${steps} steps in all)`));
      if (idleMs > budget.ms) throw new StallError(describe(`${phase}: ${idleMs} ms of simulated time without progress (budget ${budget.ms} ms)`));
    },
  };
}
