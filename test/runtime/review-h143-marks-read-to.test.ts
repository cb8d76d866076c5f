import { Registry } from 'prom-client';
import { createDlqMonitor } from '../../src/runtime/monitor';
import type { MonitorPort } from '../../src/runtime/monitor-port';
import { testDescriptor } from '../helpers/kafka';
import { kafkajsMonitorPort } from '../../src/runtime/adapters/kafkajs-monitor';
import type { KafkaJsMonitorLike } from '../../src/runtime/adapters/kafkajs-monitor';

/** A kafkajs stand-in for one partition whose records sit at these offsets (the others: markers, handed to no eachMessage). */
function fakeKafka(offsets: number[]) {
  const log = offsets.map((offset) => ({ offset: String(offset), timestamp: String(1_000 + offset), value: Buffer.from(`r${offset}`) }));
  const kafka: KafkaJsMonitorLike = {
    admin: () => ({
      connect: async () => undefined,
      disconnect: async () => undefined,
      fetchTopicOffsets: async () => [{ partition: 0, low: '0', high: String(offsets[offsets.length - 1]! + 1) }],
      fetchOffsets: async () => [],
    }),
    consumer: () => {
      const listeners = new Map<string, ((e: { payload: { error: unknown; restart: boolean } }) => void)[]>();
      let position = 0;
      let paused = false;
      let stopped = false;
      return {
        connect: async () => undefined,
        disconnect: async () => void (stopped = true),
        subscribe: async () => undefined,
        seek: ({ offset }) => void (position = Number(offset)),
        pause: () => void (paused = true),
        on: (event, listener) => listeners.set(event, [...(listeners.get(event) ?? []), listener]),
        events: { GROUP_JOIN: 'join' },
        async run({ eachMessage }) {
          for (const listener of listeners.get('join') ?? []) listener({ payload: { error: undefined, restart: true } });
          void (async () => {
            while (!stopped) {
              await new Promise((resolve) => setImmediate(resolve));
              const next = log.find((m) => Number(m.offset) >= position);
              if (stopped || paused || next === undefined) continue;
              position = Number(next.offset) + 1;
              await eachMessage({ partition: 0, message: next });
            }
          })();
        },
      };
    },
  };
  return kafka;
}

describe('review h143: what the monitor\'s read of marks says it covered', () => {
  // What is seen: the range asked ends on a marker (offset 2: a `no-records` entry's `to` is
  // the highest offset offsetsToCheck asks, and holds no record by definition); the read goes
  // on to the next record (3), keeps no mark for it (only offsets up to `to` are kept) and says
  // readTo 4. The monitor keeps [from, readTo) as covered (monitor-audit-marks.ts: c.to), and
  // the fold takes "covered, no mark" as "holds no record" (noRecordsKnown, anotherNoRecords):
  // record 3 reads as no record. A later poll whose entries name nothing at or past c.to reads
  // only the witness, so the hole stays: a `no-records` entry naming 3 (a stray writer, an entry
  // of another log arriving late) would then be taken, and record 3 counted handled
  // (kafka_dlq_size one short). No legitimate entry names such a range, so the exposure is
  // narrow; the contract (MarksRead.readTo: `to` + 1 once read to it) is broken all the same.
  // Class: a read's extent reported past what it recorded. Fixed, as suggested: in marksAt, readTo at most
  // `to` + 1 (or keep the mark of the record that ended the read).
  it('says no offset is covered past `to` + 1 unless its record\'s mark is kept', async () => {
    const read = await kafkajsMonitorPort(fakeKafka([0, 1, 3, 4]), 'orders.dlq-monitor', 2_000).marksAt!('orders.dlq', new Map([[0, { from: 0n, to: 2n }]]));
    const readTo = read.readTo.get(0)!;
    const marked = [...read.marks.get(0)!.keys()];
    const recordsCovered = [0n, 1n, 3n, 4n].filter((o) => o < readTo);
    expect({ readTo, missing: recordsCovered.filter((o) => !marked.includes(o)) }).toEqual({ readTo, missing: [] });
  });

  // What is seen, end to end: records 0, 1, 3, 4 (2 a marker), 0 and 1 replayed with the
  // marker passed (entries as a step writes them); the group's offsets gone. Poll 1: size 2
  // (3 and 4), right, and the read says it covered [0, 4) with marks at 0 and 1 only. A stray
  // writer then adds a `no-records` entry 2-3 bordered by 1: poll 2 reads only the witness
  // (nothing named reaches 4), takes the entry (covered, no mark in 2-3) and counts record 3
  // handled: size 1. A monitor started fresh reads 3's mark and leaves the entry out (size 2).
  it('does not count record 3 handled on a stray entry naming it, poll after poll', async () => {
    const monitored = testDescriptor('h143m', [60]);
    const base = { by: 'ops', consumer: monitored.name, dlqTopic: monitored.dlqTopic, partition: 0 };
    const mark = (o: number) => `${1_000 + o}/-1/${`r${o}`.length}`;
    const audit = [
      JSON.stringify({ ...base, action: 'replayed', offset: '0', mark: mark(0) }),
      JSON.stringify({ ...base, action: 'replayed', offset: '1', mark: mark(1) }),
      JSON.stringify({ ...base, action: 'no-records', from: '2', to: '2', offset: '1', mark: mark(1) }),
    ];
    const reads = kafkajsMonitorPort(fakeKafka([0, 1, 3, 4]), 'orders.dlq-monitor', 2_000);
    const port: MonitorPort = {
      endOffsets: async (topic) => (topic === monitored.dlqTopic ? [{ partition: 0, low: '0', high: '5' }] : [{ partition: 0, low: '0', high: '0' }]),
      committedOffsets: async () => [],
      timestampsAt: async (_topic, offsets) => new Map(offsets.map((o) => [o.partition, 1_000])),
      async readFrom(_topic, from) {
        const start = Number(from.get(0) ?? '0');
        return { records: audit.slice(start).map((value, i) => ({ partition: 0, offset: String(start + i), value })), ends: new Map([[0, String(audit.length)]]) };
      },
      marksAt: (topic, ranges, signal) => reads.marksAt!(topic, ranges, signal),
    };
    const monitor = createDlqMonitor(monitored, { port, registry: new Registry() });
    expect((await monitor.poll()).dlqSize).toBe(2);
    audit.push(JSON.stringify({ ...base, action: 'no-records', from: '2', to: '3', offset: '1' }));
    const fresh = createDlqMonitor(monitored, { port, registry: new Registry() });
    expect({ polled: (await monitor.poll()).dlqSize, fresh: (await fresh.poll()).dlqSize }).toEqual({ polled: 2, fresh: 2 });
  });
});
