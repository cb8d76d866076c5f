import { Registry } from 'prom-client';
import { createDlqMonitor } from '../../src/runtime/monitor';
import type { MonitorPort } from '../../src/runtime/monitor-port';
import { testDescriptor } from '../helpers/kafka';
import { longestStall } from '../helpers/event-loop-stall';

const consumer = testDescriptor('h136', [60]);

type Commit = { partition: number; offset: string; metadata: string | null };

/** A DLQ of one partition and its audit log in memory; nothing committed by the replay group. */
function scene(dlqEnd: number) {
  // `generation`: the DLQ topic's, which its records' marks tell (a DLQ created again has another); `marksRead`: records whose marks were read.
  // `markers`: offsets holding no record (a transactional producer's commit markers, aborted records): no mark is read there.
  const state = { dlqEnd, audit: [] as string[], committed: [] as Commit[], auditReads: 0, generation: 1, marksRead: 0, markers: new Set<number>() };
  const markAt = (offset: number) => `${state.generation}/${offset}`;
  /** An audit entry; `marked`: with the mark of the record the DLQ holds there now, as this release writes it. */
  const entry = (action: string, offset: number, marked = false) =>
    JSON.stringify({ action, by: 'ops', reason: 'x', consumer: consumer.name, dlqTopic: consumer.dlqTopic, partition: 0, offset: String(offset), ...(marked ? { mark: markAt(offset) } : {}) });
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
    async marksAt(_topic, ranges) {
      const { from, to } = ranges.get(0)!;
      const offsets = Array.from({ length: Number(to - from) + 1 }, (_, i) => Number(from) + i).filter((o) => o < state.dlqEnd && !state.markers.has(o));
      state.marksRead += offsets.length;
      return { marks: new Map([[0, new Map(offsets.map((o) => [BigInt(o), markAt(o)]))]]), readTo: new Map([[0, to + 1n]]) };
    },
  };
  /** A `no-records` entry as a replay or discard step writes it: offsets [from, to] its commit passed, next to the handled record at `border`. */
  const noRecords = (from: number, to: number, border: number, marked = false) =>
    JSON.stringify({ action: 'no-records', by: 'ops', consumer: consumer.name, dlqTopic: consumer.dlqTopic, partition: 0, from: String(from), to: String(to), offset: String(border), ...(marked ? { mark: markAt(border) } : {}) });
  return { state, port, entry, noRecords };
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

  /*
   * Found (h136): the DLQ deleted and created again (a partition count change, an incident):
   * the monitor keeps the old DLQ's entries (read while they named records of the old log, so
   * the fix above keeps them), and the new log's records at those offsets count as handled
   * though nobody handled them. A monitor started afresh counts them too (the fold has no way
   * to tell the logs apart).
   * Code at fault: src/runtime/monitor-handled-states.ts gave the fold no marks to check.
   * Class: durable evidence keyed by a name that outlives the thing it names.
   * Fixed (h138): entries this release writes carry their record's mark; the monitor reads
   * the marks of the records they name through its port (marksAt) and the fold leaves out an
   * entry whose record has another mark, as the DLQ sessions do. What was read is kept per
   * partition (src/runtime/monitor-audit-marks.ts): a poll reads the records named since, and
   * the last one it read, whose mark says whether the log is still the one read.
   * Entries of earlier releases carry no mark and are still taken.
   */
  it('does not count the records of a DLQ created again as handled by the entries of the old one', async () => {
    const { state, port, entry } = scene(100);
    state.audit = Array.from({ length: 100 }, (_, o) => entry('replayed', o, true));
    const monitor = createDlqMonitor(consumer, { port, registry: new Registry() });
    expect((await monitor.poll()).dlqSize).toBe(0);
    // The DLQ is deleted and created again; 10 new dead letters, none handled.
    state.generation = 2;
    state.dlqEnd = 10;
    expect((await monitor.poll()).dlqSize).toBe(10);
  });

  /*
   * The same with entries of an earlier release, which carry no mark (h137's finding 1 for the
   * DLQ sessions, here for the monitor): the records of the DLQ created again were stamped
   * after those entries were written, more than a DLQ producer's clock may run ahead.
   */
  it('does not count the records of a DLQ created again as handled by unmarked entries of the old one', async () => {
    const { state, port } = scene(100);
    const writtenAt = Date.parse('2026-01-01T00:00:00Z');
    state.audit = Array.from({ length: 100 }, (_, o) =>
      JSON.stringify({ action: 'replayed', by: 'ops', reason: 'x', at: new Date(writtenAt).toISOString(), consumer: consumer.name, dlqTopic: consumer.dlqTopic, partition: 0, offset: String(o) }),
    );
    // The records the DLQ holds: the old ones stamped before the entries, the new ones a day after.
    port.marksAt = async (_topic, ranges) => {
      const { from, to } = ranges.get(0)!;
      const offsets = Array.from({ length: Number(to - from) + 1 }, (_, i) => Number(from) + i).filter((o) => o < state.dlqEnd && !state.markers.has(o));
      const stamped = state.generation === 1 ? writtenAt - 60_000 : writtenAt + 86_400_000;
      return { marks: new Map([[0, new Map(offsets.map((o) => [BigInt(o), `${stamped}/-1/10`]))]]), readTo: new Map([[0, to + 1n]]) };
    };
    const monitor = createDlqMonitor(consumer, { port, registry: new Registry() });
    expect((await monitor.poll()).dlqSize).toBe(0);
    state.generation = 2;
    state.dlqEnd = 10;
    expect((await monitor.poll()).dlqSize).toBe(10);
  });

  /*
   * Found (h136), fixed: readFrom (kafkajs) gave the whole read 4 x 15 s and, past that,
   * rejects with nothing: the tail keeps nothing of what it read, and the next poll starts the
   * same read from the same offsets. An audit log too large to read in a minute (a busy DLQ
   * keeps a year of entries; the first poll after Kafka deleted the group's commits reads it
   * all) fails every poll for good: gauges dropped, KafkaRetryMonitorDown, no DLQ alert at all.
   * Played here by a port that reads 1,000 records per call before its deadline.
   * Code at fault: src/runtime/adapters/kafkajs-monitor.ts readFrom (failOnTimeout drops what
   * was read), src/runtime/monitor-audit-tail.ts (keeps only complete reads).
   * Class: a read with a fixed deadline whose progress is lost on timeout (no forward progress).
   * Fixed: TopicRead says where the next read of each partition starts (`ends`) and whether it
   * reached the ends read at its start (`complete`); on its deadline readFrom returns what it
   * has, incomplete; the tail keeps it and fails the poll (gauges dropped, not wrong) until a
   * read completes, so each poll gets further.
   */
  it('reports once it has read an audit log too large to read within one read’s deadline, each poll reading on', async () => {
    const { state, port, entry } = scene(5_000);
    state.audit = Array.from({ length: 5_000 }, (_, o) => entry('replayed', o));
    port.readFrom = async (_topic, from) => {
      // Each read gets through 1,000 records before its deadline.
      const start = Number(from.get(0) ?? '0');
      const end = Math.min(state.audit.length, start + 1_000);
      const records = state.audit.slice(start, end).map((value, i) => ({ partition: 0, offset: String(start + i), value }));
      return end < state.audit.length ? { records, ends: new Map([[0, String(end)]]), complete: false } : { records, ends: new Map([[0, String(end)]]) };
    };
    const monitor = createDlqMonitor(consumer, { port, registry: new Registry() });
    const sizes: (number | string)[] = [];
    for (let i = 0; i < 6; i++) sizes.push(await monitor.poll().then((s) => s.dlqSize, () => 'failed'));
    expect(sizes).toEqual(['failed', 'failed', 'failed', 'failed', 0, 0]);
  });

  /*
   * Found (h136): the first poll that reads the audit log parsed every entry and folded them
   * in one synchronous stretch, and every later poll with a new entry folded them all again:
   * with 300,000 entries (node 24) the first poll held the event loop about 8 s, each later
   * one 0.6-0.8 s. `krt monitor` answered /metrics late; an in-process monitor (NestJS,
   * beside a worker) stalled the service: its consumers' heartbeats, its HTTP.
   * Class: work proportional to the whole history, done synchronously on every poll.
   * Fixed: the parse, the entries' check against the log (offsetsToCheck,
   * entriesOfAnotherLog) and the fold are sliced work (src/runtime/sliced-work.ts), run in
   * slices of about 20 ms with the event loop running between them; the DLQ console's
   * session open runs them so too. Left: each later poll with a new entry still folds every
   * kept entry again (sliced, so it costs time, not the event loop).
   */
  it('lets the event loop run while it reads and folds a large audit log', async () => {
    const { state, port, entry } = scene(100_000);
    state.audit = Array.from({ length: 100_000 }, (_, o) => entry('replayed', o));
    // The double's reads made once, before the clock starts: a broker's come in over the network, not in one stretch of this loop.
    const log = await port.readFrom!(consumer.dlqAuditTopic!, new Map());
    const marks = await port.marksAt!(consumer.dlqTopic, new Map([[0, { from: 0n, to: 99_999n }]]));
    const readAtOnce: MonitorPort = {
      ...port,
      readFrom: async (_topic, from) => (Number(from.get(0) ?? '0') === 0 ? log : { records: [], ends: log.ends }),
      marksAt: async () => marks,
    };
    const monitor = createDlqMonitor(consumer, { port: readAtOnce, registry: new Registry() });
    let size: number | undefined;
    const longest = await longestStall(async () => {
      size = (await monitor.poll()).dlqSize;
    });
    expect(size).toBe(0);
    expect(longest).toBeLessThan(200);
  }, 60_000);

  /*
   * Found (h136): a DLQ written in transactions holds offsets without a record
   * (commit markers, aborted records). A replay or discard session absorbs those bordering
   * handled records into the commit (absorbNoRecordOffsets), so with the group's commit the
   * monitor reads 0; the audit log named records only, so once Kafka deleted the commits the
   * fold left every marker unhandled: kafka_dlq_size counted them (here 4 of 7 offsets) and
   * the oldest-unhandled read landed on the next record, a handled one: the DLQ alerts paged on
   * a DLQ whose every record was handled.
   * Code at fault: the audit entries (src/dlq/audit.ts) did not record the no-record offsets a
   * commit passed over; the fold (dlq-handled-from-audit.ts) could not pass them.
   * Class: a derived state rebuilt from a source that lacks part of what built it.
   * Fixed (h141): a step writes a `no-records` entry per range its commit absorbs, naming the
   * handled offset next to it; the fold absorbs a range where that offset is handled by the
   * entries it takes and the marks' read found no record in the range (an entry of an earlier
   * log of the DLQ's name never hides a record of this one: the test after this one).
   */
  it('does not count the transaction markers of a DLQ written in transactions as unhandled once Kafka deleted the commits', async () => {
    // Offsets: 0, 1 records, 2 marker; 3 aborted, 4 marker; 5 record, 6 marker. All records replayed.
    const { state, port, entry, noRecords } = scene(7);
    state.markers = new Set([2, 3, 4, 6]);
    state.audit = [...[0, 1, 5].map((o) => entry('replayed', o, true)), noRecords(2, 4, 1, true), noRecords(6, 6, 5, true)];
    state.committed = [{ partition: 0, offset: '7', metadata: null }];
    const monitor = createDlqMonitor(consumer, { port, registry: new Registry() });
    expect((await monitor.poll()).dlqSize).toBe(0);
    state.committed = [];
    expect((await monitor.poll()).dlqSize).toBe(0);
  });

  it('still counts the markers of an audit log of an earlier release (no `no-records` entries) as unhandled, never fewer records', async () => {
    const { state, port, entry } = scene(7);
    state.markers = new Set([2, 3, 4, 6]);
    state.audit = [0, 1, 5].map((o) => entry('replayed', o));
    const monitor = createDlqMonitor(consumer, { port, registry: new Registry() });
    expect((await monitor.poll()).dlqSize).toBe(4);
  });

  /*
   * The danger of h141's fix: a `no-records` entry says offsets hold no record, and the DLQ
   * topic can be deleted and created again while the audit log is kept. An entry of the old
   * log must never make a record the new log holds at those offsets count as handled.
   */
  it('lists the records of a DLQ created again at offsets where the old one held markers as unhandled', async () => {
    // Old log: 0, 1 records replayed, 2-4 markers; new log: 0-6 records, 0 and 1 replayed (the new log's own entries).
    const { state, port, entry, noRecords } = scene(7);
    state.markers = new Set([2, 3, 4]);
    state.audit = [entry('replayed', 0, true), entry('replayed', 1, true), noRecords(2, 4, 1, true)];
    state.generation = 2;
    state.markers = new Set();
    state.audit.push(entry('replayed', 0, true), entry('replayed', 1, true));
    const monitor = createDlqMonitor(consumer, { port, registry: new Registry() });
    expect((await monitor.poll()).dlqSize).toBe(5);
  });

  it('lists those records as unhandled when neither the old entries nor the range carry a mark (an entry of the old log taken as this one\'s)', async () => {
    const { state, port, entry, noRecords } = scene(7);
    // The old entries unmarked: the fold cannot tell them from the new log's; the records at 2-4 still show the range is not this log's.
    state.audit = [entry('replayed', 0), entry('replayed', 1), noRecords(2, 4, 1)];
    const monitor = createDlqMonitor(consumer, { port, registry: new Registry() });
    expect((await monitor.poll()).dlqSize).toBe(5);
  });

  it('takes no `no-records` entry whose offsets the monitor cannot read (a port without marksAt)', async () => {
    const { state, port, entry, noRecords } = scene(7);
    state.markers = new Set([2, 3, 4, 6]);
    state.audit = [...[0, 1, 5].map((o) => entry('replayed', o, true)), noRecords(2, 4, 1, true), noRecords(6, 6, 5, true)];
    const { marksAt: _unused, ...blind } = port;
    const monitor = createDlqMonitor(consumer, { port: blind, registry: new Registry() });
    expect((await monitor.poll()).dlqSize).toBe(4);
  });
});
