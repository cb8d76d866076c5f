/** Time as the runtime sees it; the simulator and tests pass a virtual one. */
export interface Clock {
  now(): number;
  /** Calls `fn` after `ms`; returns a function that cancels it. */
  setTimer(ms: number, fn: () => void): () => void;
  /** Resolves after `ms` (used between in-place retries and publish retries, never in a handler). */
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (ms, fn) => {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** Node runs a `setTimeout` longer than this (about 24.8 days) after 1 ms instead. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The clock with timers of any length: a long one is a chain of timers of at most
 * MAX_TIMER_MS, so a `'30d'` tier waits 30 days instead of waking every millisecond.
 */
export function withLongTimers(clock: Clock): Clock {
  function setTimer(ms: number, fn: () => void): () => void {
    if (!(ms > MAX_TIMER_MS)) return clock.setTimer(ms, fn);
    let cancel = clock.setTimer(MAX_TIMER_MS, () => {
      cancel = setTimer(ms - MAX_TIMER_MS, fn);
    });
    return () => cancel();
  }
  return { now: () => clock.now(), setTimer, sleep: (ms) => new Promise((resolve) => setTimer(ms, resolve)) };
}
