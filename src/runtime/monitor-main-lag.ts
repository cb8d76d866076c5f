import type { ConsumerDescriptor } from './descriptor';
import type { MonitorPort } from './monitor-port';
import { headTimestamps, partitionLags } from './monitor-partition-lag';
import type { RetryMetrics } from './metrics';
import type { HeadTimes } from './monitor-head-times';

/**
 * The main group's lag per partition of the main topic, in records and in seconds (how
 * long ago its next record was written: kafka-lag-exporter's time lag, read exactly from
 * the record instead of interpolated, so it is right from the monitor's first poll). A
 * lagging partition whose head record could not be read keeps its last lag in seconds (0
 * would say "caught up": found by attack 32), unless its head is the record read before
 * (`heads`): then its lag grows from that record's write time. Returns the partitions whose
 * head was not read, `topic/partition`.
 */
export async function collectMainLag(port: MonitorPort, consumer: ConsumerDescriptor, metrics: RetryMetrics, heads: HeadTimes, now: number, signal?: AbortSignal): Promise<string[]> {
  const unread: string[] = [];
  const lags = await partitionLags(port, consumer.mainTopic, consumer.groups.main);
  const read = await headTimestamps(port, consumer.mainTopic, lags, signal);
  const written = heads.complete(consumer.mainTopic, lags, read);
  for (const { partition, lag, head } of lags) {
    const labels = { consumer: consumer.name, topic: consumer.mainTopic, partition: String(partition) };
    const at = written.get(partition);
    metrics.mainLag.set(labels, lag);
    if (head !== undefined && !read.has(partition)) unread.push(`${consumer.mainTopic}/${partition}`);
    // No record from the head to the end (a transactional producer's markers alone): caught up.
    if (at !== undefined || head === undefined || read.get(partition) === null) metrics.mainLagSeconds.set(labels, at === undefined ? 0 : Math.max(0, now - at) / 1000);
  }
  return unread;
}
