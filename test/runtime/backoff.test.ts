import { backoffMs } from '../../src/runtime/backoff';

const policy = { backoffMs: 100, maxBackoffMs: 2_000, jitter: 0.5 };

describe('in-place backoff (R14)', () => {
  it('doubles from the base with no randomness at the top of the jitter range', () => {
    expect([1, 2, 3, 4, 5].map((retry) => backoffMs(retry, policy, () => 0))).toEqual([100, 200, 400, 800, 1600]);
  });

  it('never exceeds its cap', () => {
    expect(backoffMs(30, policy, () => 0)).toBe(2_000);
  });

  it('stays within [delay × (1 − jitter), delay] for any random draw', () => {
    for (let i = 0; i < 1_000; i++) {
      const wait = backoffMs(3, policy, Math.random);
      expect(wait).toBeGreaterThanOrEqual(200);
      expect(wait).toBeLessThanOrEqual(400);
    }
  });

  it('spreads consumers that failed together', () => {
    const waits = new Set(Array.from({ length: 50 }, () => backoffMs(4, { ...policy, jitter: 1 }, Math.random)));
    expect(waits.size).toBeGreaterThan(25);
  });
});
