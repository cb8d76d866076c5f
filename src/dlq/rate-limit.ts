import { setTimeout as sleep } from 'node:timers/promises';
import { DefectError } from '../runtime/krt-error';

export interface LimiterClock {
  now(): number;
  /** Resolves after `ms`; a clock may end its wait early (rejecting) when `signal` is aborted (take() stops waiting either way). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

const systemClock: LimiterClock = {
  now: () => Date.now(),
  // Node's own timer ends with the signal (rejecting): a stopped wait holds the process no longer.
  sleep: (ms, signal) => sleep(ms, undefined, { signal }),
};

export interface RateLimiter {
  /** The most records one take may ask for. */
  readonly capacity: number;
  /**
   * Waits until `count` tokens are free and lends them; call the returned function once
   * the records they cover are acknowledged. Tokens come back one window after that.
   * Rejects, lending nothing, once `signal` is aborted while it waits.
   */
  take(count: number, signal?: AbortSignal): Promise<() => void>;
}

/**
 * A token bucket in which every token comes back one window (a second, or longer below
 * one record per second) after the send it paid for ended, so no window ever holds more
 * sends than the bucket has tokens: `--rate 5` never puts more than 5 records into any
 * one second, however long an earlier send stalled (a schedule would catch up in a burst).
 * Fractional rates above one round down: the rate is a ceiling, never exceeded.
 */
export function rateLimiter(perSecond: number, clock: LimiterClock = systemClock): RateLimiter {
  if (!(perSecond > 0)) throw new RangeError(`a rate must be positive, not ${perSecond}`);
  const capacity = Math.max(1, Math.floor(perSecond));
  const windowMs = perSecond >= 1 ? 1000 : 1000 / perSecond;
  // Lent tokens: `returnsAt` is Infinity until the send they paid for ends.
  let lent: { count: number; returnsAt: number }[] = [];
  return {
    capacity,
    async take(count, signal) {
      if (!Number.isInteger(count) || count < 1 || count > capacity) throw new RangeError(`take 1 to ${capacity} tokens, not ${count}`);
      for (;;) {
        const now = clock.now();
        lent = lent.filter((l) => l.returnsAt > now);
        const free = capacity - lent.reduce((n, l) => n + l.count, 0);
        if (free >= count) {
          const loan = { count, returnsAt: Infinity };
          lent.push(loan);
          return () => {
            loan.returnsAt = clock.now() + windowMs;
          };
        }
        const returning = lent.filter((l) => l.returnsAt !== Infinity).sort((a, b) => a.returnsAt - b.returnsAt);
        let missing = count - free;
        const enough = returning.find((l) => (missing -= l.count) <= 0);
        if (!enough) throw new DefectError('the previous records were never acknowledged: call the function take returned before taking again');
        await sleepUnlessAborted(clock, enough.returnsAt - now, signal);
      }
    },
  };
}

/** The clock's sleep, ended early (rejecting) when the signal is aborted before or during it. */
async function sleepUnlessAborted(clock: LimiterClock, ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return clock.sleep(ms);
  signal.throwIfAborted();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([clock.sleep(ms, signal), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort!);
  }
}
