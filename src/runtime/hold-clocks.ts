import type { ParkState } from './park-state';

/*
 * Park-by-key: when this member first saw each hold of a main partition, kept apart from the
 * partition's state, which a failed operation drops: a hold loaded again after one is not timed
 * again from the reload (found by attack 30: a release refused once, retried, put the expiry a
 * whole period later, and failures more often than that held the key for good). A rebalance
 * forgets them all, and a state begun anew its partition's: a hold read from another member's
 * commit, or another state's, counts from the load, never shorter, as an early expiry would skip
 * its tier record as stale (found by attack 31: a main topic created again began a state whose
 * first hold inherited the old log's time).
 */

/** The first-seen times of the holds of each main partition. */
export interface HoldClocks {
  /** When this member first saw `hash` held at `offset` (with `retryId`) under `state`: now, if never. */
  firstSeen(partition: number, state: ParkState, hash: string, offset: bigint, retryId: string | undefined): number;
  /** Forgets the holds of p that a state stored for p no longer has. */
  stored(partition: number, state: ParkState): void;
  /** Forgets p's holds (a state begun anew), or every partition's (a rebalance). */
  forget(partition?: number): void;
}

/**
 * A hold as it is told apart: the state's id (a state begun anew has another), its key, its
 * offset and its retry id (a replay's retry holds at its record's offset too).
 */
const holdKey = (state: ParkState, hash: string, offset: bigint, retryId: string | undefined) => `${state.id ?? ''} ${hash} ${offset} ${retryId ?? ''}`;

export function createHoldClocks(now: () => number): HoldClocks {
  const seen = new Map<number, Map<string, number>>();
  return {
    firstSeen(partition, state, hash, offset, retryId) {
      const ofPartition = seen.get(partition) ?? new Map<string, number>();
      seen.set(partition, ofPartition);
      const key = holdKey(state, hash, offset, retryId);
      if (!ofPartition.has(key)) ofPartition.set(key, now());
      return ofPartition.get(key)!;
    },
    stored(partition, state) {
      const ofPartition = seen.get(partition);
      if (ofPartition === undefined) return;
      const held = new Set([...state.held].map(([hash, offset]) => holdKey(state, hash, offset, state.retryIds?.get(hash))));
      for (const key of ofPartition.keys()) if (!held.has(key)) ofPartition.delete(key);
    },
    forget(partition) {
      if (partition === undefined) seen.clear();
      else seen.delete(partition);
    },
  };
}
