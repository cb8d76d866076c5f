import type { MonitorPort } from './monitor-port';
import { decodeParkState } from './park-state';

/** One partition of a topic as a group sees it: records it has not consumed, and the first of them. */
export interface PartitionLag {
  readonly partition: number;
  readonly lag: number;
  /** The offset of the group's next record, when it lags. */
  readonly head?: string;
  /** The partition's end offset, when it lags. */
  readonly end?: string;
}

/**
 * Where a group stands on each partition of a topic. A group with no commit starts at
 * the low watermark; a park-by-key commit counts from its position (records below it
 * are handled or parked in the tiers, not waiting on this topic).
 */
export async function partitionLags(port: MonitorPort, topic: string, groupId: string): Promise<PartitionLag[]> {
  const [ends, committed] = await Promise.all([port.endOffsets(topic), port.committedOffsets(groupId, topic)]);
  const commits = new Map(committed.map((c) => [c.partition, c]));
  return ends.map((end) => {
    const commit = commits.get(end.partition);
    const low = BigInt(end.low);
    const high = BigInt(end.high);
    const offset = commit && BigInt(commit.offset) >= 0n ? decodeParkState(BigInt(commit.offset), commit.metadata).position : low;
    const next = offset > low ? offset : low;
    return next < high ? { partition: end.partition, lag: Number(high - next), head: next.toString(), end: end.high } : { partition: end.partition, lag: 0 };
  });
}

/**
 * The write timestamps (epoch ms) of the head records of the lagging partitions; null for a
 * partition with no record from its head to its end (a transactional producer's markers: the
 * group has consumed every record there is).
 */
export async function headTimestamps(port: MonitorPort, topic: string, lags: readonly PartitionLag[], signal?: AbortSignal): Promise<Map<number, number | null>> {
  const heads = lags.flatMap((l) => (l.head === undefined ? [] : [{ partition: l.partition, offset: l.head, ...(l.end === undefined ? {} : { end: l.end }) }]));
  if (heads.length === 0) return new Map();
  // A read that failed leaves every head unread: the caller keeps their last values and says so.
  return port.timestampsAt(topic, heads, signal).catch((error: unknown) => {
    if (signal?.aborted) throw error;
    return new Map<number, number | null>();
  });
}
