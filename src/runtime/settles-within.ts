import type { Clock } from './clock';

/**
 * Whether `work` settles within `ms` on `clock` (a rejection counts as settled: the caller
 * reports it where `work` is made). The work goes on either way; the caller only stops
 * waiting for it, so that a client's loop is not held (it serves a rebalance only between calls).
 */
export async function settlesWithin(clock: Clock, work: Promise<unknown>, ms: number): Promise<boolean> {
  let cancel = () => {};
  const late = new Promise<boolean>((resolve) => (cancel = clock.setTimer(Math.max(0, ms), () => resolve(false))));
  try {
    return await Promise.race([work.then(() => true, () => true), late]);
  } finally {
    cancel();
  }
}
