import { Registry } from 'prom-client';
import { createDlqMonitor } from '../../src/runtime/monitor';
import type { MonitorPort } from '../../src/runtime/monitor-port';
import { eventually } from '../helpers/eventually';
import { testDescriptor } from '../helpers/kafka';

const consumer = testDescriptor('monitor', [60]);

interface FakeDlq {
  /** Per partition: log start, end, the replay group's commit (absent: none). */
  partitions: { low: number; high: number; committed?: number; metadata?: string }[];
  /** Timestamp of the record at an offset. */
  timestampOf: (partition: number, offset: number) => number;
}

/** A port over a DLQ described in memory; it counts polls and how many run at once. */
function fakePort(dlq: FakeDlq, gate?: () => Promise<void>) {
  const calls = { polls: 0, concurrent: 0, maxConcurrent: 0, askedOffsets: [] as { partition: number; offset: string }[][] };
  const port: MonitorPort = {
    async endOffsets(topic) {
      if (topic !== consumer.dlqTopic) return [{ partition: 0, low: '0', high: '0' }];
      calls.polls++;
      calls.concurrent++;
      calls.maxConcurrent = Math.max(calls.maxConcurrent, calls.concurrent);
      try {
        await gate?.();
      } finally {
        calls.concurrent--;
      }
      return dlq.partitions.map((p, partition) => ({ partition, low: String(p.low), high: String(p.high) }));
    },
    async committedOffsets(_groupId, topic) {
      if (topic !== consumer.dlqTopic) return [];
      return dlq.partitions.flatMap((p, partition) => (p.committed === undefined ? [] : [{ partition, offset: String(p.committed), metadata: p.metadata ?? null }]));
    },
    async timestampsAt(_topic, offsets) {
      calls.askedOffsets.push(offsets);
      return new Map(offsets.filter((o) => Number(o.offset) < dlq.partitions[o.partition]!.high).map((o) => [o.partition, dlq.timestampOf(o.partition, Number(o.offset))]));
    },
  };
  return { port, calls };
}

const series = async (registry: Registry, name: string) => {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  return (metric?.values ?? []).find((v) => v.labels.consumer === consumer.name)?.value;
};

describe('the DLQ monitor', () => {
  it('counts unhandled records that retention deleted and keeps the age gauge on the oldest record still there', async () => {
    const dlq: FakeDlq = {
      // Partition 0: the group committed 10, retention moved the log start to 25: 15 records lost.
      // Partition 1: never committed, log start 4: four records lost before anyone looked.
      partitions: [{ low: 25, high: 40, committed: 10 }, { low: 4, high: 4 }],
      timestampOf: (partition, offset) => 1_000_000 + partition * 1000 + offset,
    };
    const registry = new Registry();
    const { port, calls } = fakePort(dlq);
    const snapshot = await createDlqMonitor(consumer, { port, registry }).poll();
    expect(snapshot).toMatchObject({ dlqSize: 15, dlqExpired: 19, oldestUnhandledAt: 1_000_025 });
    expect(calls.askedOffsets).toEqual([[{ partition: 0, offset: '25', end: '40' }]]);
    expect(await registry.metrics()).toContain(`kafka_dlq_expired_total{consumer="${consumer.name}",topic="${consumer.dlqTopic}"} 19`);
    expect(await series(registry, 'kafka_dlq_oldest_unhandled_timestamp_seconds')).toBe(1000.025);
  });

  it('reports the same expired total after a restart and after a krt command passed the gap', async () => {
    const dlq: FakeDlq = { partitions: [{ low: 25, high: 40, committed: 10 }], timestampOf: () => 5_000 };
    const first = new Registry();
    await createDlqMonitor(consumer, { port: fakePort(dlq).port, registry: first }).poll();
    // A replay passed the gap: offset 25, and the 15 it passed recorded in the commit's metadata.
    dlq.partitions[0] = { low: 25, high: 40, committed: 25, metadata: '{"f":"krt-handled/2","e":"15","r":""}' };
    const restarted = new Registry();
    await createDlqMonitor(consumer, { port: fakePort(dlq).port, registry: restarted }).poll();
    expect([await series(first, 'kafka_dlq_expired_total'), await series(restarted, 'kafka_dlq_expired_total')]).toEqual([15, 15]);
  });

  it('adds only new expiries to the counter, poll after poll', async () => {
    const dlq: FakeDlq = { partitions: [{ low: 0, high: 10, committed: 0 }], timestampOf: () => 5_000 };
    const registry = new Registry();
    const monitor = createDlqMonitor(consumer, { port: fakePort(dlq).port, registry });
    await monitor.poll();
    expect(await series(registry, 'kafka_dlq_expired_total')).toBe(0);
    dlq.partitions[0]!.low = 3;
    await monitor.poll();
    dlq.partitions[0]!.low = 10;
    const last = await monitor.poll();
    expect({ counter: await series(registry, 'kafka_dlq_expired_total'), size: last.dlqSize, oldest: last.oldestUnhandledAt }).toEqual({ counter: 10, size: 0, oldest: undefined });
    expect(await series(registry, 'kafka_dlq_oldest_unhandled_timestamp_seconds')).toBeUndefined();
  });

  it('polls at once when started, and never runs two polls at the same time', async () => {
    const dlq: FakeDlq = { partitions: [{ low: 0, high: 2, committed: 0 }], timestampOf: () => 5_000 };
    let release: () => void = () => {};
    const gate = () => new Promise<void>((resolve) => (release = resolve));
    const { port, calls } = fakePort(dlq, gate);
    const monitor = createDlqMonitor(consumer, { port, registry: new Registry(), intervalMs: 5 });
    monitor.start();
    expect(calls.polls).toBe(1);
    const manual = monitor.poll();
    for (let i = 0; i < 5; i++) {
      const before = calls.polls;
      release();
      await eventually('the next poll', () => (calls.polls > before ? true : undefined));
    }
    const stopped = monitor.stop();
    release();
    await Promise.all([stopped, manual]);
    expect({ maxConcurrent: calls.maxConcurrent, pollsAfterStop: calls.polls }).toEqual({ maxConcurrent: 1, pollsAfterStop: 6 });
  });

  it('keeps the last oldest-record timestamp when a head record cannot be read, and reports that same value', async () => {
    const dlq: FakeDlq = { partitions: [{ low: 0, high: 5, committed: 0 }], timestampOf: () => 7_000 };
    const registry = new Registry();
    const errors: unknown[] = [];
    const { port } = fakePort(dlq);
    let headReadable = true;
    const monitor = createDlqMonitor(consumer, { port: { ...port, timestampsAt: async (t, o) => (headReadable ? port.timestampsAt(t, o) : new Map()) }, registry, onError: (e) => errors.push(e) });
    await monitor.poll();
    headReadable = false;
    const snapshot = await monitor.poll();
    // The snapshot is what the NestJS health indicator shows: the gauge's value, not "no oldest record".
    expect({ gauge: await series(registry, 'kafka_dlq_oldest_unhandled_timestamp_seconds'), snapshot: snapshot.oldestUnhandledAt }).toEqual({ gauge: 7, snapshot: 7_000 });
    expect(String(errors[0])).toContain('kept the last oldest-record timestamp');
  });
});

describe('the DLQ monitor when Kafka cannot be read', () => {
  const failing = (port: MonitorPort, down: () => boolean): MonitorPort => ({
    endOffsets: (topic) => (down() ? Promise.reject(new Error('Connection error: ECONNREFUSED')) : port.endOffsets(topic)),
    committedOffsets: (group, topic) => port.committedOffsets(group, topic),
    timestampsAt: (topic, offsets) => port.timestampsAt(topic, offsets),
  });
  const dlq: FakeDlq = { partitions: [{ low: 0, high: 4, committed: 1 }], timestampOf: () => 9_000 };

  it('drops every gauge of its consumer on a failed poll, so KafkaRetryMonitorDown fires instead of alerts reading stale values, and sets them again on the next good poll', async () => {
    const registry = new Registry();
    let down = false;
    const monitor = createDlqMonitor(consumer, { port: failing(fakePort(dlq).port, () => down), registry });
    // Another consumer's monitor on the same registry, as in krt monitor or a service with two consumers.
    const other = testDescriptor('other', [60]);
    await createDlqMonitor(other, { port: fakePort({ partitions: [], timestampOf: () => 1_000 }).port, registry }).poll();
    await monitor.poll();
    expect(await series(registry, 'kafka_dlq_size')).toBe(3);

    down = true;
    await expect(monitor.poll()).rejects.toThrow('ECONNREFUSED');
    const text = await registry.metrics();
    // Only the counter stays: a counter that disappeared and came back would read as a reset.
    expect(text.split('\n').filter((line) => line.includes(`consumer="${consumer.name}"`) && !line.startsWith('kafka_dlq_expired_total'))).toEqual([]);
    expect(text).toContain(`kafka_dlq_size{consumer="${other.name}",topic="${other.dlqTopic}"} 0`);

    down = false;
    await monitor.poll();
    expect({ size: await series(registry, 'kafka_dlq_size'), oldest: await series(registry, 'kafka_dlq_oldest_unhandled_timestamp_seconds') }).toEqual({ size: 3, oldest: 9 });
  });

  it('started, reports each failed poll, serves no gauges meanwhile and keeps polling', async () => {
    const registry = new Registry();
    let down = false;
    const errors: unknown[] = [];
    const { port, calls } = fakePort(dlq);
    const monitor = createDlqMonitor(consumer, { port: failing(port, () => down), registry, intervalMs: 5, onError: (e) => errors.push(e) });
    await monitor.poll();
    down = true;
    monitor.start();
    try {
      await eventually('two failed polls', () => (errors.length >= 2 ? true : undefined));
      expect(await series(registry, 'kafka_dlq_size')).toBeUndefined();
      const before = calls.polls;
      down = false;
      await eventually('a good poll after the failures', async () => (calls.polls > before && (await series(registry, 'kafka_dlq_size')) === 3 ? true : undefined));
    } finally {
      await monitor.stop();
    }
    expect(String(errors[0])).toContain('ECONNREFUSED');
  });
});
