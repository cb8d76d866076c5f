import { Registry } from 'prom-client';
import { createDlqMonitor } from '../../src/runtime/monitor';
import type { MonitorPort } from '../../src/runtime/monitor-port';
import { eventually } from '../helpers/eventually';
import { testDescriptor } from '../helpers/kafka';

const consumer = testDescriptor('monitor', [60]);

/**
 * A monitor whose poll never ends (a Kafka call that neither answers nor fails: an admin
 * connection or a consumer disconnect that hangs) kept serving the gauges of its last good
 * poll for as long as the process lived: present and constant, so KafkaRetryMonitorDown
 * (missing series) stayed quiet and a tier stuck since then kept its old overdue value, so
 * TierStuck, MainConsumerLag, Backlog and OldestMessageAge could never fire. A poll now
 * has a deadline (`pollDeadlineMs`, default ten intervals and at least 5 minutes): past
 * it the gauges go and the loop goes on.
 */
describe('a DLQ monitor whose poll hangs', () => {
  it('drops its gauges once a poll has run past its deadline without an answer, so KafkaRetryMonitorDown fires instead of the alerts reading frozen values', async () => {
    let hang = false;
    const never = new Promise<never>(() => undefined);
    const port: MonitorPort = {
      async endOffsets() {
        if (hang) return never;
        return [{ partition: 0, low: '0', high: '3' }];
      },
      async committedOffsets() {
        return [];
      },
      async timestampsAt(_topic, offsets) {
        return new Map(offsets.map((o) => [o.partition, 9_000]));
      },
    };
    const registry = new Registry();
    const size = async () => (await registry.getMetricsAsJSON()).find((m) => m.name === 'kafka_dlq_size')?.values.find((v) => v.labels.consumer === consumer.name)?.value;
    const monitor = createDlqMonitor(consumer, { port, registry, intervalMs: 20, pollDeadlineMs: 200 });
    await monitor.poll();
    expect(await size()).toBe(3);
    hang = true;
    monitor.start();
    try {
      await eventually('the gauges of a hung poll to go', async () => ((await size()) === undefined ? true : undefined), 2_000);
      // The loop goes on past the hung poll: the next one starts.
      hang = false;
      await eventually('a good poll after the hung one', async () => ((await size()) === 3 ? true : undefined), 2_000);
    } finally {
      await monitor.stop();
    }
  });
});
