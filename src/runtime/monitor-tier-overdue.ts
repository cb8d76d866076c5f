import type { ConsumerDescriptor } from './descriptor';
import type { MonitorPort } from './monitor-port';
import { headTimestamps, partitionLags } from './monitor-partition-lag';
import type { RetryMetrics } from './metrics';
import type { HeadTimes } from './monitor-head-times';

/**
 * kafka_retry_tier_overdue_seconds per tier partition: now minus the due time of the
 * partition's head record (its write time plus the tier's delay, the `x-due-at` the
 * router wrote), 0 when the head is not due yet or the partition is empty. The value
 * carries the age, so an alert on it survives restarts, and one stuck partition shows
 * however busy the others are. A lagging partition whose head record could not be read
 * keeps its last value (0 is "on time": one such poll resolved RetryTierStuck, found by
 * attack 32), unless its head is the record read before (`heads`): then its value grows from
 * that record's due time. Returns the partitions whose head was not read, `topic/partition`.
 */
export async function collectTierOverdue(port: MonitorPort, consumer: ConsumerDescriptor, metrics: RetryMetrics, heads: HeadTimes, now: number, signal?: AbortSignal): Promise<string[]> {
  const unread: string[] = [];
  for (const tier of consumer.tiers) {
    const lags = await partitionLags(port, tier.topic, consumer.groups.retry);
    const read = await headTimestamps(port, tier.topic, lags, signal);
    const written = heads.complete(tier.topic, lags, read);
    for (const { partition, head } of lags) {
      const at = written.get(partition);
      if (head !== undefined && !read.has(partition)) unread.push(`${tier.topic}/${partition}`);
      // No record from the head to the end (markers alone): nothing waits, as for an empty partition.
      if (at === undefined && head !== undefined && read.get(partition) !== null) continue;
      const overdueMs = at === undefined ? 0 : Math.max(0, now - (at + tier.delayMs));
      metrics.tierOverdue.set({ consumer: consumer.name, topic: tier.topic, partition: String(partition) }, overdueMs / 1000);
    }
  }
  return unread;
}
