import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import type { MonitorPort } from '../../src/runtime/monitor-port';

/**
 * A MonitorPort over one DLQ partition (its log start and end read from `dlq` at each call,
 * so a test moves them) with no commit in the replay group, every head record at 1,000 ms,
 * and the audit log `audit` (entries as JSON, read from where the tail asks). `overrides`
 * replaces any call: the topic id, the marks, a hook in a read.
 */
export function auditMonitorPort(consumer: ConsumerDescriptor, dlq: { low: number; high: number }, audit: readonly string[], overrides: Partial<MonitorPort> = {}): MonitorPort {
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
    ...overrides,
  };
}

/** An audit entry of partition 0 of the consumer's DLQ, as JSON, with `fields` over its defaults. */
export const auditEntryOf =
  (consumer: ConsumerDescriptor) =>
  (fields: Record<string, unknown>): string =>
    JSON.stringify({ by: 'ops', consumer: consumer.name, dlqTopic: consumer.dlqTopic, partition: 0, at: '2026-01-01T00:00:00.000Z', ...fields });
