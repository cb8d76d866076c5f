import { Registry } from 'prom-client';
import { createDlqMonitor } from '../../src/runtime/monitor';
import { testDescriptor } from '../helpers/kafka';
import { auditEntryOf, auditMonitorPort } from './audit-monitor-port';

/**
 * h145 review: a monitor whose port reads ids, and whose id read fails for one poll (the
 * Confluent client's connection, one per read), folded that poll without ids: a DLQ created
 * again had its old topic's floor taken again, its expired count fell, and rose back at the
 * next poll. kafka_dlq_expired_total is a counter raised by each rise: every failed id read
 * counted the new topic's expired records once more, and paged. A poll whose id read fails
 * folds with the id read last.
 */
const consumer = testDescriptor('monitor-ids-flap', [60]);
const entry = auditEntryOf(consumer);

describe('a monitor whose id read fails for one poll', () => {
  it('counts the expired records of a DLQ created again once', async () => {
    // The old topic's floor (150 handled: within the new end, so the tail keeps it); the topic made again holds 200, the first 100 deleted by retention unhandled.
    const audit = [entry({ action: 'handled-below', belowOffset: '150', expiredTotal: '0', dlqTopicId: 'old-id' })];
    const answers: (() => string)[] = [
      () => 'new-id',
      () => {
        throw new Error('Local: Broker transport failure');
      },
      () => 'new-id',
    ];
    const port = auditMonitorPort(consumer, { low: 100, high: 200 }, audit, { topicId: async () => (answers.shift() ?? (() => 'new-id'))() });
    const registry = new Registry();
    const monitor = createDlqMonitor(consumer, { port, registry, onError: () => {} });
    for (let i = 0; i < 3; i++) await monitor.poll();
    const counter = (await registry.getMetricsAsJSON()).find((m) => m.name === 'kafka_dlq_expired_total');
    expect(counter?.values.reduce((sum, v) => sum + Number(v.value), 0)).toBe(100);
  });
});
