import { Registry } from 'prom-client';
import { createDlqMonitor } from '../../src/runtime/monitor';
import type { MonitorPort } from '../../src/runtime/monitor-port';
import { testDescriptor } from '../helpers/kafka';

const consumer = testDescriptor('h138', [60]);

/** A DLQ of one partition whose records' marks tell its generation, its audit log, and no replay-group commit. */
function scene(dlqEnd: number) {
  const state = { dlqEnd, generation: 1, audit: [] as string[], marksRead: [] as number[] };
  const markAt = (offset: number) => `${state.generation}/${offset}`;
  const replayed = (offset: number) =>
    JSON.stringify({ action: 'replayed', by: 'ops', reason: 'x', consumer: consumer.name, dlqTopic: consumer.dlqTopic, partition: 0, offset: String(offset), mark: markAt(offset) });
  const port: MonitorPort = {
    endOffsets: async (topic) => [{ partition: 0, low: '0', high: String(topic === consumer.dlqTopic ? state.dlqEnd : 0) }],
    committedOffsets: async () => [],
    timestampsAt: async (_topic, offsets) => new Map(offsets.map((o) => [o.partition, 1_000])),
    async readFrom(_topic, from) {
      const start = Number(from.get(0) ?? '0');
      return { records: state.audit.slice(start).map((value, i) => ({ partition: 0, offset: String(start + i), value })), ends: new Map([[0, String(state.audit.length)]]) };
    },
    async marksAt(_topic, ranges) {
      const { from, to } = ranges.get(0)!;
      const offsets = Array.from({ length: Number(to - from) + 1 }, (_, i) => Number(from) + i).filter((o) => o < state.dlqEnd);
      state.marksRead.push(...offsets);
      return { marks: new Map([[0, new Map(offsets.map((o) => [BigInt(o), markAt(o)]))]]), readTo: new Map([[0, to + 1n]]) };
    },
  };
  return { state, port, replayed };
}

describe('the marks of the DLQ records the audit log names, as the monitor reads them', () => {
  it('reads on each poll only the records named since the last, and the last one it read', async () => {
    const { state, port, replayed } = scene(100);
    state.audit = Array.from({ length: 50 }, (_, o) => replayed(o));
    const monitor = createDlqMonitor(consumer, { port, registry: new Registry() });
    const sizes = [(await monitor.poll()).dlqSize];
    const reads = [state.marksRead.splice(0).length];
    state.audit.push(...[50, 51].map(replayed));
    sizes.push((await monitor.poll()).dlqSize);
    reads.push(state.marksRead.splice(0).length);
    sizes.push((await monitor.poll()).dlqSize);
    expect({ sizes, reads, third: state.marksRead }).toEqual({ sizes: [50, 48, 48], reads: [50, 3], third: [51] });
  });

  it('tells a DLQ created again and refilled past the old end by the last record it read', async () => {
    const { state, port, replayed } = scene(100);
    state.audit = Array.from({ length: 100 }, (_, o) => replayed(o));
    const monitor = createDlqMonitor(consumer, { port, registry: new Registry() });
    const sizes = [(await monitor.poll()).dlqSize];
    // Deleted and created again between two polls, and 150 dead letters written to it: none handled.
    state.generation = 2;
    state.dlqEnd = 150;
    sizes.push((await monitor.poll()).dlqSize);
    expect(sizes).toEqual([0, 150]);
  });

  it('takes the entries as they are with a port that cannot read the marks', async () => {
    const { state, port, replayed } = scene(100);
    state.audit = Array.from({ length: 100 }, (_, o) => replayed(o));
    delete port.marksAt;
    const monitor = createDlqMonitor(consumer, { port, registry: new Registry() });
    await monitor.poll();
    state.generation = 2;
    state.dlqEnd = 150;
    expect((await monitor.poll()).dlqSize).toBe(50);
  });
});
