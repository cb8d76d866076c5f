import { backoffMs } from '../backoff';

/** The wait before a consumer is run again after its client stopped it: 1 s, doubling per restart in a row, at most 30 s. */
const RESTART = { backoffMs: 1_000, maxBackoffMs: 30_000, jitter: 0 } as const;

/** The wait before restart number `restarts` (0 for the first) of a consumer its client stopped. */
export const restartDelayMs = (restarts: number): number => backoffMs(restarts + 1, RESTART);
