import { Registry } from 'prom-client';
import { createDlqMonitor } from '../../src/runtime/monitor';
import { testDescriptor } from '../helpers/kafka';
import { auditEntryOf, auditMonitorPort } from './audit-monitor-port';

/**
 * h145 review, the rest of the straddle closed for the audit log's read
 * (h145-monitor-poll-straddles.test.ts): a DLQ created again between the poll's ends read and
 * its id read, one round trip, gave the fold the new id over the old topic's ends. The poll at
 * which the id changes is dropped; the next reads ends and id again.
 */
const consumer = testDescriptor('monitor-ids-straddle-offsets', [60]);
const entry = auditEntryOf(consumer);

describe('a monitor poll during whose offsets read the DLQ is created again', () => {
  // Seen before the fix: kafka_dlq_expired_total raised by 1000 for good. The poll reads the DLQ's ends and the replay
  // group's commits side by side, then the id: a DLQ created again within that round trip gave the new id to the old
  // ends. A poll whose id differs from the one read last is dropped (gauges dropped for one poll, counter untouched).
  it('raises kafka_dlq_expired_total by nothing the old topic handled', async () => {
    const dlq = { low: 1000, high: 1000, id: 'old-id' };
    const audit = [entry({ action: 'handled-below', belowOffset: '1000', expiredTotal: '0', dlqTopicId: 'old-id' })];
    let recreateDuringRead = false;
    const port = auditMonitorPort(consumer, dlq, audit, {
      async committedOffsets() {
        // The commits read beside the ends: the DLQ is deleted and created again in the round trip.
        if (recreateDuringRead) Object.assign(dlq, { low: 0, high: 0, id: 'new-id' });
        return [];
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
