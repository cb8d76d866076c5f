import fc from 'fast-check';
import { rateLimiter } from '../../src/dlq/rate-limit';

/** A virtual clock: sleeping moves time forward at once. */
function virtualClock() {
  let now = 0;
  return { now: () => now, sleep: async (ms: number) => void (now += Math.max(0, ms)), advance: (ms: number) => void (now += ms) };
}

interface Send {
  readonly start: number;
  readonly end: number;
  readonly count: number;
}

/** The most records whose sends touch any one-second window. */
function busiestSecond(sends: readonly Send[]): number {
  const edges = sends.flatMap((s) => [s.start, s.end, s.start - 999, s.end - 999]);
  return Math.max(0, ...edges.map((x) => sends.filter((s) => s.start < x + 1000 && s.end >= x).reduce((n, s) => n + s.count, 0)));
}

async function replaySends(rate: number, batches: readonly { count: number; durationMs: number; idleMs: number }[]): Promise<Send[]> {
  const clock = virtualClock();
  const limiter = rateLimiter(rate, clock);
  const sends: Send[] = [];
  for (const b of batches) {
    const count = Math.min(b.count, limiter.capacity);
    const done = await limiter.take(count);
    const start = clock.now();
    clock.advance(b.durationMs);
    done();
    sends.push({ start, end: clock.now(), count });
    clock.advance(b.idleMs);
  }
  return sends;
}

describe('the replay rate limit', () => {
  it('never puts more than --rate 5 records into one second after a send stalled for 2 s', async () => {
    const sends = await replaySends(5, [{ count: 5, durationMs: 2000, idleMs: 0 }, ...Array.from({ length: 6 }, () => ({ count: 1, durationMs: 0, idleMs: 0 }))]);
    expect(busiestSecond(sends)).toBe(5);
  });

  it('lets the full rate through when sends are quick', async () => {
    const sends = await replaySends(10, Array.from({ length: 30 }, () => ({ count: 10, durationMs: 5, idleMs: 0 })));
    const elapsed = sends[sends.length - 1]!.end - sends[0]!.start;
    expect(300 / (elapsed / 1000)).toBeGreaterThan(9);
  });

  it('never exceeds the rate in any one-second window, whatever the batches, stalls and pauses', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.record({ count: fc.integer({ min: 1, max: 20 }), durationMs: fc.integer({ min: 0, max: 3000 }), idleMs: fc.integer({ min: 0, max: 1500 }) }), { maxLength: 25 }),
        async (rate, batches) => {
          expect(busiestSecond(await replaySends(rate, batches))).toBeLessThanOrEqual(rate);
        },
      ),
    );
  });

  it('spaces records below one per second by the rate: 0.5/s is one record every two seconds', async () => {
    const sends = await replaySends(0.5, Array.from({ length: 3 }, () => ({ count: 1, durationMs: 0, idleMs: 0 })));
    expect(sends.map((s) => s.start)).toEqual([0, 2000, 4000]);
  });
});
