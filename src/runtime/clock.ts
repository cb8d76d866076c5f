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
