import { Registry } from 'prom-client';
import { createDlqMonitor } from '../../src/runtime/monitor';
import type { MonitorPort } from '../../src/runtime/monitor-port';
import { testDescriptor } from '../helpers/kafka';

/**
 * h145 review: the monitor stopped asking for the DLQ's id for good after one answer
 * without one, meant for a client that reads no ids (kafkajs alone). A port that did read
 * ids and once answered none (Kafka's all-zero id during a cluster upgrade, a describe
 * answered while the topic was being made again) left the monitor blind to ids until its
 * restart: the old topic's floor then silenced kafka_dlq_expired_total of the topic made
 * again, which is what ids were read for. A port that answered an id is asked again.
 */
const consumer = testDescriptor('monitor-ids-undefined', [60]);

function aPort(dlq: { low: number; high: number }, audit: string[], topicId: MonitorPort['topicId']): MonitorPort {
  return {
    async endOffsets(topic) {
      return topic === consumer.dlqTopic ? [{ partition: 0, low: String(dlq.low), high: String(dlq.high) }] : [{ partition: 0, low: '0', high: '0' }];
    },
    async committedOffsets() {
      return [];
    },
    async timestampsAt(_topic, offsets) {
      return new Map(offsets.map((o) => [o.partition, 1_000]));
    },
    async readFrom(_topic, from) {
      const start = Number(from.get(0) ?? '0');
      return { records: audit.slice(start).map((value, i) => ({ partition: 0, offset: String(start + i), value })), ends: new Map([[0, String(audit.length)]]) };
    },
    topicId,
  };
}

const entry = (fields: Record<string, unknown>) => JSON.stringify({ by: 'ops', consumer: consumer.name, dlqTopic: consumer.dlqTopic, partition: 0, at: '2026-01-01T00:00:00.000Z', ...fields });

describe('the monitor, whose port read an id and once answers none', () => {
  it('reads the id again at the next poll: the old topic\'s floor does not silence the expired count of the topic made again', async () => {
    const dlq = { low: 1000, high: 1000 };
    const answers: (string | undefined)[] = ['old-id', undefined, 'new-id'];
    let last: string | undefined = 'new-id';
    const topicId = jest.fn(async () => (answers.length > 0 ? answers.shift() : last));
    const audit = [entry({ action: 'handled-below', belowOffset: '1000', expiredTotal: '0', dlqTopicId: 'old-id' })];
    const monitor = createDlqMonitor(consumer, { port: aPort(dlq, audit, topicId), registry: new Registry() });
    expect(await monitor.poll()).toMatchObject({ dlqSize: 0, dlqExpired: 0 });
    // Created again: 200 records, retention deleted the first 100, none handled; one answer without an id.
    Object.assign(dlq, { low: 100, high: 200 });
    await monitor.poll();
    // The poll that reads the new id is dropped (its ends may be the old topic's); the next one counts.
    await expect(monitor.poll()).rejects.toThrow(/deleted and created again/);
    expect(await monitor.poll()).toMatchObject({ dlqSize: 100, dlqExpired: 100 });
    last = undefined;
  });
});
