import { Registry } from 'prom-client';
import { createDlqMonitor } from '../../src/runtime/monitor';
import type { MonitorPort } from '../../src/runtime/monitor-port';
import { testDescriptor } from '../helpers/kafka';

const consumer = testDescriptor('monitor', [60]);

/**
 * What was seen (session 56): the replay group commits only when someone runs `krt dlq
 * replay` or `discard`, then it is empty. Kafka deletes an empty group's offsets after
 * `offsets.retention.minutes` (7 days by default), while the DLQ keeps its records for its
 * own retention (28 days in the example topologies). After a quiet week the monitor found
 * no commit and counted every record still in the log as unhandled, and every record
 * retention ever deleted as expired unhandled: KafkaDlqNewMessages, KafkaDlqBacklog,
 * KafkaDlqOldestMessageAge and KafkaDlqRecordsExpired paged on records that were handled.
 *
 * Class: durable state kept in a store with a shorter retention than the data it describes.
 * Fixed: a partition without a commit takes its handled state from the DLQ audit log
 * (src/runtime/monitor-handled-states.ts), which names every record replayed or discarded
 * and is kept a year; the monitor reads it once and then only what is new.
 */
describe('the DLQ monitor after Kafka deleted the replay group’s offsets', () => {
  const replayedEntries = Array.from({ length: 100 }, (_, offset) => ({
    partition: 0,
    offset: String(offset),
    value: JSON.stringify({ action: 'replayed', by: 'ops', at: '2026-11-01T00:00:00Z', consumer: consumer.name, dlqTopic: consumer.dlqTopic, partition: 0, offset: String(offset) }),
  }));

  function portOver(state: { committed: { partition: number; offset: string; metadata: string | null }[]; audit: typeof replayedEntries; reads: number }): MonitorPort {
    return {
      async endOffsets(topic) {
        return topic === consumer.dlqTopic ? [{ partition: 0, low: '40', high: '100' }] : [{ partition: 0, low: '0', high: '0' }];
      },
      async committedOffsets(_groupId, topic) {
        return topic === consumer.dlqTopic ? state.committed : [];
      },
      async timestampsAt(_topic, offsets) {
        return new Map(offsets.map((o) => [o.partition, 1_000]));
      },
      async readFrom(topic, from) {
        expect(topic).toBe(consumer.dlqAuditTopic);
        state.reads += 1;
        const start = BigInt(from.get(0) ?? '0');
        return { records: state.audit.filter((r) => BigInt(r.offset) >= start), ends: new Map([[0, String(state.audit.length)]]) };
      },
    };
  }

  it('does not count records the replay group had handled as unhandled or expired once Kafka has deleted the group’s offsets', async () => {
    // Partition 0: 100 records written, all replayed (committed 100); retention since deleted the first 40.
    const state = { committed: [{ partition: 0, offset: '100', metadata: null as string | null }], audit: replayedEntries, reads: 0 };
    const monitor = createDlqMonitor(consumer, { port: portOver(state), registry: new Registry() });
    expect(await monitor.poll()).toMatchObject({ dlqSize: 0, dlqExpired: 0 });

    // A week without a replay or a discard: Kafka deletes the empty group's offsets.
    state.committed = [];
    const after = await monitor.poll();
    expect({ size: after.dlqSize, expired: after.dlqExpired, oldest: after.oldestUnhandledAt }).toEqual({ size: 0, expired: 0, oldest: undefined });
  });

  it('reads the audit log only while a partition has no commit, and then only what was written since the last poll', async () => {
    const state = { committed: [{ partition: 0, offset: '100', metadata: null as string | null }], audit: replayedEntries.slice(0, 60), reads: 0 };
    const from: string[] = [];
    const port = portOver(state);
    const reading = port.readFrom!.bind(port);
    port.readFrom = (topic, offsets, signal) => {
      from.push(offsets.get(0) ?? 'start');
      return reading(topic, offsets, signal);
    };
    const monitor = createDlqMonitor(consumer, { port, registry: new Registry() });
    await monitor.poll();
    expect(state.reads).toBe(0);

    state.committed = [];
    expect((await monitor.poll()).dlqSize).toBe(40);
    state.audit = replayedEntries;
    expect((await monitor.poll()).dlqSize).toBe(0);
    expect(from).toEqual(['start', '60']);
  });

  it('counts the records as unhandled and says why when the port cannot read the audit log', async () => {
    const state = { committed: [] as { partition: number; offset: string; metadata: string | null }[], audit: replayedEntries, reads: 0 };
    const { readFrom: _cannot, ...port } = portOver(state);
    const errors: string[] = [];
    const monitor = createDlqMonitor(consumer, { port, registry: new Registry(), onError: (e) => errors.push(String(e)) });
    expect((await monitor.poll()).dlqSize).toBe(60);
    await monitor.poll();
    expect(errors).toEqual([expect.stringContaining('has no readFrom')]);
  });

  it('fails the poll, dropping the gauges, when the audit log cannot be read: an unread log would page on handled records', async () => {
    const state = { committed: [] as { partition: number; offset: string; metadata: string | null }[], audit: replayedEntries, reads: 0 };
    const port = portOver(state);
    port.readFrom = async () => {
      throw new Error('Not authorized to access topics: [Topic authorization failed]');
    };
    const registry = new Registry();
    const monitor = createDlqMonitor(consumer, { port, registry });
    await expect(monitor.poll()).rejects.toThrow(`could not read ${consumer.dlqAuditTopic}`);
    expect(await registry.getSingleMetricAsString('kafka_dlq_size')).not.toContain(consumer.name);
  });
});
