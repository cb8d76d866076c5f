import { Registry } from 'prom-client';
import { createDlqMonitor } from '../../src/runtime/monitor';
import { testDescriptor } from '../helpers/kafka';
import { auditEntryOf, auditMonitorPort } from './audit-monitor-port';

/**
 * h145 review: the monitor read the DLQ's id last in a poll that folds the audit log, after
 * the DLQ's ends, the audit log and the records its entries name (seconds, more for a large
 * log). A DLQ deleted and created again during that poll gave the fold the new topic's id
 * over the old topic's ends: every entry of the old topic (naming its id) left out, its
 * handled records counted as unhandled and everything below its log start as expired.
 * kafka_dlq_expired_total is a counter: one such poll raised it for good, and its alert
 * paged on records handled long ago. The id is read before the audit log, right after the
 * ends, so the fold judges the ends by the id of the topic they were read from.
 */
const consumer = testDescriptor('monitor-ids-straddle', [60]);
const entry = auditEntryOf(consumer);

describe('a monitor poll during which the DLQ is created again', () => {
  it('raises kafka_dlq_expired_total by nothing the old topic handled', async () => {
    const dlq = { low: 1000, high: 1000, id: 'old-id' };
    const audit = [entry({ action: 'handled-below', belowOffset: '1000', expiredTotal: '0', dlqTopicId: 'old-id' })];
    let recreateDuringRead = false;
    const standard = auditMonitorPort(consumer, dlq, audit);
    const port = auditMonitorPort(consumer, dlq, audit, {
      async readFrom(topic, from) {
        // The audit log's read takes its time: the DLQ is deleted and created again meanwhile.
        if (recreateDuringRead) Object.assign(dlq, { low: 0, high: 0, id: 'new-id' });
        return standard.readFrom!(topic, from);
      },
      topicId: async () => dlq.id,
    });
    const registry = new Registry();
    const monitor = createDlqMonitor(consumer, { port, registry });
    expect(await monitor.poll()).toMatchObject({ dlqSize: 0, dlqExpired: 0 });
    // A new entry, so the next poll folds again (the fold's key changes).
    audit.push(entry({ action: 'handled-below', belowOffset: '1000', expiredTotal: '0', dlqTopicId: 'old-id', at: '2026-01-01T00:01:00.000Z' }));
    recreateDuringRead = true;
    await monitor.poll().catch(() => undefined);
    recreateDuringRead = false;
    await monitor.poll().catch(() => undefined);
    const counter = (await registry.getMetricsAsJSON()).find((m) => m.name === 'kafka_dlq_expired_total');
    expect(counter?.values.reduce((sum, v) => sum + Number(v.value), 0) ?? 0).toBe(0);
  });
});
