import type { InPlacePolicy } from './descriptor';

/** Returns a number in [0, 1); injectable so tests and the simulator are repeatable. */
export type Random = () => number;

/**
 * The wait before in-place retry number `retry` (1 for the first retry): exponential
 * from the base, capped, then shortened by up to `jitter` of itself at random (R14), so
 * consumers that failed together do not all call a recovering downstream at once.
 */
export function backoffMs(retry: number, policy: Pick<InPlacePolicy, 'backoffMs' | 'maxBackoffMs' | 'jitter'>, random: Random = Math.random): number {
  const exponential = policy.backoffMs * 2 ** Math.max(0, retry - 1);
  const capped = Math.min(policy.maxBackoffMs, exponential);
  return Math.round(capped * (1 - policy.jitter * random()));
}
