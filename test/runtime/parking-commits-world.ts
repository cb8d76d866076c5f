import { createHoldClocks } from '../../src/runtime/hold-clocks';
import { emptyParkState } from '../../src/runtime/park-state';
import { ParkingBudget } from '../../src/runtime/parking-budget';
import { createParkingCommits } from '../../src/runtime/parking-commits';
import { createParkingPatience } from '../../src/runtime/parking-patience';
import type { PartitionParking } from '../../src/runtime/partition-parking';
import type { ConsumerPort, OffsetCommit } from '../../src/runtime/port';
import { createTierTurns } from '../../src/runtime/tier-turns';

/** Main partition 0's topic and its one tier in the parking-commits suites. */
export const MAIN = 'orders';
export const TIER = 'orders-retry-1m';

export interface ParkingCommitsWorldOptions {
  /** The group's commits before the test (partition 0 of each topic). */
  readonly group?: readonly OffsetCommit[];
  /** The answer to every commit request (after `refuseNext`'s): an error refuses it, undefined stores it. */
  readonly refusal?: (offsets: readonly OffsetCommit[]) => Error | undefined;
  /** Whether the client answers a read of `topic`'s commit with no entry for the partition (the port does not promise one). */
  readonly noEntryFor?: (topic: string) => boolean;
}

/**
 * parking-commits.ts and what it talks to, for main partition 0: a client that keeps the
 * group's commits by topic (`group`) and records every request (`requests`), the patience
 * and hold clocks on a clock that moves only when the patience sleeps or the test says (`at`).
 */
export function parkingCommitsWorld(options: ParkingCommitsWorldOptions = {}) {
  let now = 0;
  const group = new Map((options.group ?? []).map((o) => [o.topic, o]));
  const requests: OffsetCommit[][] = [];
  /** Refusals of the next requests `when` picks, in turn. */
  const refusals: { readonly error: Error; readonly when: (offsets: readonly OffsetCommit[]) => boolean }[] = [];
  const consumer = {
    commitOffsets: async (offsets: OffsetCommit[]) => {
      requests.push(offsets);
      if (refusals[0]?.when(offsets)) throw refusals.shift()!.error;
      const refused = options.refusal?.(offsets);
      if (refused) throw refused;
      for (const o of offsets) group.set(o.topic, o);
    },
    committed: async (topic: string, partitions: number[]) =>
      (options.noEntryFor?.(topic) ? [] : partitions).map((partition) => ({ partition, offset: group.get(topic)?.offset ?? '-1', metadata: group.get(topic)?.metadata ?? null })),
  } as unknown as ConsumerPort;
  const patience = createParkingPatience({ mainTopic: MAIN, consumer: () => consumer, now: () => now, setTimer: () => () => {}, sleep: async (ms) => void (now += ms), emit: () => {} });
  const holdClocks = createHoldClocks(() => now);
  const commits = createParkingCommits({
    mainTopic: MAIN,
    tierTopics: [TIER],
    consumer: () => consumer,
    budget: new ParkingBudget(4096, MAIN, () => {}),
    patience,
    holdClocks,
    isCurrent: () => true,
  });
  /** Refuses the next request `when` picks (any, by default) with `error`, after those asked for before. */
  const refuseNext = (error: Error, when: (offsets: readonly OffsetCommit[]) => boolean = () => true) => void refusals.push({ error, when });
  return { commits, patience, holdClocks, group, requests, refuseNext, at: (ms: number) => void (now = ms) };
}

/** Main partition 0's parking at position 10, nothing held or parked; the tier committed at `tierCommitted` as the load read it. */
export function emptyParking(tierCommitted?: bigint): PartitionParking {
  return {
    state: emptyParkState(10n),
    records: new Map(),
    heldSince: new Map(),
    turns: createTierTurns(),
    tierHandled: new Map(),
    tierCommitted: new Map(tierCommitted === undefined ? [] : [[TIER, tierCommitted]]),
    tierRead: new Map(),
    soughtSinceTaken: false,
  };
}
