import { Registry } from 'prom-client';
import { createDlqMonitor } from '../../src/runtime/monitor';
import type { MonitorPort } from '../../src/runtime/monitor-port';
import { testDescriptor } from '../helpers/kafka';
import { auditEntryOf, auditMonitorPort } from './audit-monitor-port';

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
  return auditMonitorPort(consumer, dlq, audit, topicId === undefined ? {} : { topicId });
}

const entry = auditEntryOf(consumer);

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
