import { SEEK_AGAIN_MS } from './sought-back';

/** How long a seek is made again while nothing of the partition is read: far longer than librdkafka refuses seeks of a partition it holds. */
export const SEEK_UNTIL_READ_MS = 60_000;
/** The longest wait between two tries. */
const LONGEST_WAIT_MS = 5_000;

export interface SeekUntilReadOptions {
  /** Seeks main partition p to `offset` (key-parking.ts seekMain). */
  readonly seek: (partition: number, offset: bigint) => void;
  /** Runs `work` after `ms` (nothing once the consumer stops); returns a cancel. */
  readonly setTimer: (ms: number, work: () => void) => () => void;
  readonly now: () => number;
  /** The group generation this member is in (a rebalance moves it). */
  readonly generation: () => number;
}

/**
 * Park-by-key's seeks of a main partition to where it must read (a resume at the budget, a load),
 * made again after SEEK_AGAIN_MS, then twice as long each time (up to 5 s), until a record of the
 * partition is delivered, for SEEK_UNTIL_READ_MS. The Confluent client only logs a seek librdkafka refuses, and
 * reads on from where it was: past a record the state declined, with nothing after it to tell,
 * the partition read nothing more and the record never ran (the dropped-seeks property: declined
 * at the budget, its seek back and the resume's both dropped). A record read past it is judged
 * by the position checks, which seek on their own.
 */
export function createSeekUntilRead({ seek, setTimer, now, generation }: SeekUntilReadOptions) {
  /** Main records delivered per partition so far: one delivered since a seek ends its tries. */
  const delivered = new Map<number, number>();
  /** Each partition's tries under way: the timer's cancel, and whether the state that asked is still current. */
  const tries = new Map<number, { cancel: () => void; readonly current: () => boolean }>();

  /** `current`: whether the state that asked is still the partition's (a failed operation drops it, and the next load seeks for itself). */
  function seekUntilRead(partition: number, offset: bigint, current: () => boolean): void {
    seek(partition, offset);
    tries.get(partition)?.cancel();
    const deliveredThen = delivered.get(partition) ?? 0;
    const setIn = generation();
    const since = now();
    // Longer after each try: a fetch slower than a try would have its answer dropped by the next seek.
    const again = (wait = SEEK_AGAIN_MS): (() => void) =>
      setTimer(wait, () => {
        tries.delete(partition);
        if (generation() !== setIn || !current() || (delivered.get(partition) ?? 0) !== deliveredThen || now() - since >= SEEK_UNTIL_READ_MS) return;
        try {
          seek(partition, offset);
        } catch {
          // Refused: tried again at the next turn.
        }
        tries.set(partition, { cancel: again(Math.min(LONGEST_WAIT_MS, wait * 2)), current });
      });
    tries.set(partition, { cancel: again(), current });
  }

  /**
   * Seeks p to `offset` until read unless tries of the current state are under way already: a
   * record not taken because a seek came after it was fetched relies on that seek, which a state
   * since dropped (a failed operation) tries no more (review 51: the record never ran).
   */
  function ensureSeekUntilRead(partition: number, offset: bigint, current: () => boolean): void {
    const under = tries.get(partition);
    if (under !== undefined && under.current()) return;
    seekUntilRead(partition, offset, current);
  }

  return {
    seekUntilRead,
    ensureSeekUntilRead,
    /** A main record of `partition` was delivered. */
    delivered: (partition: number) => void delivered.set(partition, (delivered.get(partition) ?? 0) + 1),
    /** A rebalance: the partitions are read from the group's commits again. */
    forget(): void {
      for (const { cancel } of tries.values()) cancel();
      tries.clear();
    },
  };
}
