import { ITEMS_PER_YIELD, runNow, runSliced } from '../../src/runtime/sliced-work';
import type { SlicedWork } from '../../src/runtime/sliced-work';

/** Sums 0..n-1, yielding as sliced work does, and spinning `spinMs` per yield to stand for the work between. */
function* slowSum(n: number, spinMs = 0): SlicedWork<number> {
  let sum = 0;
  for (let i = 0; i < n; i++) {
    if ((i + 1) % ITEMS_PER_YIELD === 0) {
      const until = Date.now() + spinMs;
      while (Date.now() < until);
      yield;
    }
    sum += i;
  }
  return sum;
}

describe('sliced work', () => {
  it('gives the same result run at once or in slices', async () => {
    expect(runNow(slowSum(10_000))).toBe(49_995_000);
    await expect(runSliced(slowSum(10_000))).resolves.toBe(49_995_000);
  });

  it('lets timers run between slices of work that would hold the event loop for a second', async () => {
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 1);
    try {
      // 50 yields of 20 ms: one second of work.
      await runSliced(slowSum(50 * ITEMS_PER_YIELD, 20), undefined, 20);
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThanOrEqual(25);
  });

  it('stops between two slices once its signal is aborted', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stopping')), 50);
    await expect(runSliced(slowSum(1_000 * ITEMS_PER_YIELD, 5), controller.signal, 10)).rejects.toThrow('stopping');
  });
});
