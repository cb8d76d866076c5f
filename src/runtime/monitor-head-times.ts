import type { PartitionLag } from './monitor-partition-lag';

/**
 * The write time of each partition's head record, remembered from the last poll that read
 * it. A record's write time never changes, so while a partition's head is the same offset a
 * poll whose read of it failed still knows when it was written, and the overdue and lag
 * seconds keep growing from it as the DLQ age does (kept at their last value, a stuck tier
 * whose head was not due yet would read 0 for as long as the reads fail).
 */
export interface HeadTimes {
  /**
   * The write times of the lagging partitions' heads: those read now, and those not read
   * whose head is the offset remembered. Remembers the ones read; forgets partitions with no
   * lag, and those read to their end without a record (null: no head record to time).
   */
  complete(topic: string, lags: readonly PartitionLag[], read: ReadonlyMap<number, number | null>): Map<number, number>;
}

export function createHeadTimes(): HeadTimes {
  const remembered = new Map<string, { offset: string; writtenAt: number }>();
  return {
    complete(topic, lags, read) {
      const times = new Map<number, number>();
      for (const { partition, head } of lags) {
        const key = `${topic}/${partition}`;
        const writtenAt = read.get(partition);
        if (head === undefined || writtenAt === null) remembered.delete(key);
        else if (writtenAt !== undefined) {
          remembered.set(key, { offset: head, writtenAt });
          times.set(partition, writtenAt);
        } else {
          const known = remembered.get(key);
          if (known?.offset === head) times.set(partition, known.writtenAt);
        }
      }
      return times;
    },
  };
}
