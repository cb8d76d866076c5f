import { Registry } from 'prom-client';
import { createDlqMonitor } from '../../src/runtime/monitor';
import type { MonitorPort } from '../../src/runtime/monitor-port';
import { testDescriptor } from '../helpers/kafka';

const consumer = testDescriptor('h136', [60]);

type Commit = { partition: number; offset: string; metadata: string | null };

/** A DLQ of one partition and its audit log in memory; nothing committed by the replay group. */
function scene(dlqEnd: number) {
  const state = { dlqEnd, audit: [] as string[], committed: [] as Commit[], auditReads: 0 };
  const entry = (action: string, offset: number) => JSON.stringify({ action, by: 'ops', reason: 'x', consumer: consumer.name, dlqTopic: consumer.dlqTopic, partition: 0, offset: String(offset) });
  const port: MonitorPort = {
    async endOffsets(topic) {
      return topic === consumer.dlqTopic ? [{ partition: 0, low: '0', high: String(state.dlqEnd) }] : [{ partition: 0, low: '0', high: '0' }];
    },
    async committedOffsets(_groupId, topic) {
      return topic === consumer.dlqTopic ? state.committed : [];
    },
    async timestampsAt(_topic, offsets) {
      return new Map(offsets.map((o) => [o.partition, 1_000]));
    },
    async readFrom(_topic, from) {
      state.auditReads += 1;
      const start = Number(from.get(0) ?? '0');
      return { records: state.audit.slice(start).map((value, i) => ({ partition: 0, offset: String(start + i), value })), ends: new Map([[0, String(state.audit.length)]]) };
    },
  };
  return { state, port, entry };
}

describe('review h136: the monitor’s audit-log fallback', () => {
  /*
   * Found (h136): an audit entry naming an offset at or past the DLQ's end names no record of
   * this DLQ (an older topic of this name, a stray writer): the fold skips it while it is past
   * the end, but the monitor keeps it between polls, and once the DLQ grows past that offset
   * the fold, judging it against the new end, counts the new, never-handled record as handled:
   * kafka_dlq_size undercounts and the DLQ alerts stay silent on it (the worst outcome).
   * Code at fault: src/runtime/monitor-audit-tail.ts kept every entry; the fold
   * (dlq-handled-from-audit.ts) judges entries against the ends of the poll, not of the read.
   * Class: evidence judged against a later state than the one it was read in.
   * Fixed: the tail reads the DLQ's ends after each audit read (every genuine entry names a
   * record that was in the DLQ before its entry was written) and drops for good the new
   * entries that name an offset at or past them.
   */
  it('does not count a record written after an entry naming its offset was read as handled', async () => {
    const { state, port, entry } = scene(100);
    // Records 0-99 replayed; an entry naming 150 (not a record of this DLQ: its end is 100).
    state.audit = [...Array.from({ length: 100 }, (_, o) => entry('replayed', o)), entry('discarded', 150)];
    const monitor = createDlqMonitor(consumer, { port, registry: new Registry() });
    expect((await monitor.poll()).dlqSize).toBe(0);

    // 100 new dead letters, none handled: all 100 are unhandled, 150 among them.
    state.dlqEnd = 200;
    expect((await monitor.poll()).dlqSize).toBe(100);
  });

  it('still counts an entry about a record written to the DLQ between the read of its ends and the read of the audit log', async () => {
    const { state, port, entry } = scene(100);
    state.audit = Array.from({ length: 100 }, (_, o) => entry('replayed', o));
    const monitor = createDlqMonitor(consumer, { port, registry: new Registry() });
    expect((await monitor.poll()).dlqSize).toBe(0);
    // The poll reads the DLQ's end (100); record 100 is written and replayed before its audit read.
    const endOffsets = port.endOffsets.bind(port);
    let reads = 0;
    port.endOffsets = async (topic) => {
      const ends = await endOffsets(topic);
      if (topic === consumer.dlqTopic && reads++ === 0) {
        state.dlqEnd = 101;
        state.audit.push(entry('replayed', 100));
      }
      return ends;
    };
    await monitor.poll();
    expect((await monitor.poll()).dlqSize).toBe(0);
  });
});
