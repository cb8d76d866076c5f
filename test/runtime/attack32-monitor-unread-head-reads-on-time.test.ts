import { Registry } from 'prom-client';
import { createDlqMonitor } from '../../src/runtime/monitor';
import type { MonitorPort } from '../../src/runtime/monitor-port';
import { testDescriptor } from '../helpers/kafka';

/*
 * Class: STALL hidden (the monitor's background polling reports a stuck tier as on time).
 *
 * Scenario: a tier partition's head record is two hours past its due time (the retry group
 * is stuck: its lag is 5 and does not move). The monitor polls once and reports
 * kafka_retry_tier_overdue_seconds ~7,140 (RetryTierStuck fires). On the next poll the head
 * record cannot be read: the kafkajs monitor port's head read gives up after its 15 s timeout
 * (its group join slow, the broker busy) and, as MonitorPort says, leaves the partition out of
 * the map instead of rejecting. Nothing else changed: the partition still lags by 5.
 *
 * Seen: kafka_retry_tier_overdue_seconds{partition="0"} = 0 (and the main topic's
 * kafka_retry_main_lag_seconds = 0 while it lags by 5): an unread head is reported as "on time or
 * empty", the value that resolves RetryTierStuck / MainConsumerLag (their rules take
 * last_over_time of the gauge: one such poll is the last sample and the alert's `for` starts
 * over). A tier stuck for good, under a monitor whose head reads time out now and then, never
 * alerts. The DLQ age gauge handles the same case (keeps its last value and reports it,
 * monitor.ts), the tier and main gauges do not.
 *
 * Code at fault: src/runtime/monitor-tier-overdue.ts collectTierOverdue (`at === undefined ?
 * 0`) and src/runtime/monitor-main-lag.ts collectMainLag (same), for a partition whose
 * partitionLags() says it lags (head defined) but whose head timestamp was not read.
 *
 * Class of bug: a partial failure of a background read taken as a healthy value (stale-or-
 * missing rule broken: neither dropped nor kept, but replaced by the "all is well" value).
 *
 * Suggested fix: only a partition with no lag (head undefined) reads 0; a lagging partition
 * whose head was not read keeps its last value (as the DLQ age does) or has its series
 * removed, and onError is told.
 */
const consumer = testDescriptor('attack32', [60]);
const tier = consumer.tiers[0]!;

function port(headReadable: () => boolean, writtenAt: number): MonitorPort {
  return {
    endOffsets: async (topic) => (topic === consumer.dlqTopic ? [{ partition: 0, low: '0', high: '0' }] : [{ partition: 0, low: '0', high: '5' }]),
    committedOffsets: async () => [{ partition: 0, offset: '0', metadata: null }],
    // As the kafkajs port does past its read timeout: the partition left out, no error.
    timestampsAt: async (_topic, offsets) => (headReadable() ? new Map(offsets.map((o) => [o.partition, writtenAt])) : new Map()),
  };
}

async function gaugeOf(registry: Registry, name: string, topic: string): Promise<number | undefined> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  return (metric?.values ?? []).find((v) => v.labels.consumer === consumer.name && v.labels.topic === topic && v.labels.partition === '0')?.value;
}

describe('the DLQ monitor when a lagging partition\'s head record cannot be read', () => {
  it('does not report a stuck tier partition (nor a lagging main partition) as on time', async () => {
    const registry = new Registry();
    let readable = true;
    const writtenAt = Date.now() - 2 * 3_600_000;
    const monitor = createDlqMonitor(consumer, { port: port(() => readable, writtenAt), registry, onError: () => {} });
    await monitor.poll();
    const before = {
      overdue: (await gaugeOf(registry, 'kafka_retry_tier_overdue_seconds', tier.topic))!,
      mainLagSeconds: (await gaugeOf(registry, 'kafka_retry_main_lag_seconds', consumer.mainTopic))!,
    };
    expect(before.overdue).toBeGreaterThan(7_000);
    expect(before.mainLagSeconds).toBeGreaterThan(7_000);

    readable = false;
    await monitor.poll().catch(() => undefined);
    const overdue = await gaugeOf(registry, 'kafka_retry_tier_overdue_seconds', tier.topic);
    const mainLagSeconds = await gaugeOf(registry, 'kafka_retry_main_lag_seconds', consumer.mainTopic);
    // Kept (at least the last value) or dropped (missing): never the "on time" 0.
    // Seen: { overdue: 0, mainLagSeconds: 0 }.
    expect({ overdueHidden: overdue === 0, mainLagHidden: mainLagSeconds === 0 }).toEqual({ overdueHidden: false, mainLagHidden: false });
  });
});
