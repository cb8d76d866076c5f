import type { RetryEventListener } from './events';
import type { HoldClocks } from './hold-clocks';
import { releaseHold, takeHold } from './park-state';
import type { PartitionParking } from './partition-parking';
import type { TierCommit } from './tier-turns';

export interface ParkingHoldExpiryOptions {
  readonly mainTopic: string;
  /** Longest a key stays held (KeyParkingOptions.holdExpiryMs). */
  readonly holdExpiryMs: number;
  readonly now: () => number;
  readonly setTimer: (ms: number, work: () => void) => () => void;
  readonly emit: RetryEventListener;
  /** When this member first saw each hold. */
  readonly holdClocks: HoldClocks;
  /** Whether `parking` is still main partition p's loaded state. */
  readonly isCurrent: (partition: number, parking: PartitionParking) => boolean;
  /** The group generation this member is in (a rebalance moves it). */
  readonly generation: () => number;
  /** Runs `work` on p's state under p's lock, while the generation is still `setIn` (key-parking.ts onTimer). */
  readonly onTimer: (partition: number, setIn: number, work: (parking: PartitionParking) => Promise<void>) => void;
  /** Runs a released key's parked records and waiting tier records, gathering their tier commits in `ran`. */
  readonly drain: (partition: number, parking: PartitionParking, hash: string, ran: TierCommit[]) => Promise<void>;
  /** After releases: free keys' waiting records run, then the state is committed with `ran`. */
  readonly afterReleases: (partition: number, parking: PartitionParking, ran: TierCommit[]) => Promise<void>;
}

/**
 * Park-by-key's holds and their expiry: a key held past `holdExpiryMs` (its tier record can no
 * longer arrive) is released by a timer, one per main partition, set to its oldest hold.
 */
export function createParkingHoldExpiry({ mainTopic, holdExpiryMs, now: clock, setTimer, emit, holdClocks, isCurrent, generation, onTimer, drain, afterReleases }: ParkingHoldExpiryOptions) {
  /** Timers that release expired holds, one per main partition. */
  const expiryTimers = new Map<number, () => void>();

  function hold(partition: number, parking: PartitionParking, hash: string, offset: bigint, retryId?: string): void {
    takeHold(parking.state, hash, offset, retryId);
    parking.heldSince.set(hash, holdClocks.firstSeen(partition, parking.state, hash, offset, retryId));
    // An earlier hold's timer comes first; it sets the next one.
    if (!expiryTimers.has(partition)) watchHolds(partition, parking);
  }

  /** Sets the partition's timer to its oldest hold's expiry (holds loaded from a commit count from when this member first saw them). */
  function watchHolds(partition: number, parking: PartitionParking): void {
    // A state a rebalance forgot sets no timer: it would cancel the next generation's.
    if (!isCurrent(partition, parking)) return;
    const now = clock();
    for (const [hash, offset] of parking.state.held) if (!parking.heldSince.has(hash)) parking.heldSince.set(hash, holdClocks.firstSeen(partition, parking.state, hash, offset, parking.state.retryIds?.get(hash)));
    expiryTimers.get(partition)?.();
    expiryTimers.delete(partition);
    const since = [...parking.state.held.keys()].map((hash) => parking.heldSince.get(hash)!);
    if (since.length === 0) return;
    const dueIn = Math.max(0, Math.min(...since) + holdExpiryMs - now);
    const setIn = generation();
    expiryTimers.set(
      partition,
      setTimer(dueIn, () => {
        expiryTimers.delete(partition);
        onTimer(partition, setIn, (parking) => releaseExpired(partition, parking));
      }),
    );
  }

  /**
   * Releases holds whose tier record can no longer arrive (tier retention passed, the tier
   * recreated): their keys' parked records run, so neither the key nor the partition
   * waits forever. A copy of the tier record that still comes later is stale.
   */
  async function releaseExpired(partition: number, parking: PartitionParking): Promise<void> {
    if (!isCurrent(partition, parking)) return;
    const now = clock();
    const expired = [...parking.state.held.keys()].filter((hash) => now - parking.heldSince.get(hash)! >= holdExpiryMs);
    const ran: TierCommit[] = [];
    for (const hash of expired) {
      emit({ type: 'hold-expired', topic: mainTopic, partition, offset: parking.state.held.get(hash)!.toString(), heldMs: now - parking.heldSince.get(hash)! });
      releaseHold(parking.state, hash);
      parking.heldSince.delete(hash);
      await drain(partition, parking, hash, ran);
    }
    if (expired.length > 0) await afterReleases(partition, parking, ran);
    watchHolds(partition, parking);
  }
  return {
    hold,
    watchHolds,
    /** A rebalance: the timers set before are the old generation's. */
    forget(): void {
      for (const cancel of expiryTimers.values()) cancel();
      expiryTimers.clear();
    },
  };
}
