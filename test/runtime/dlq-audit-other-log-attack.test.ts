import { replayRecords } from '../../src/dlq/replay';
import { replayRoute } from '../../src/dlq/replay-route';
import { DlqSession } from '../../src/dlq/session';
import { recordMark } from '../../src/runtime/record-mark';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { DlqKafkaDouble } from './dlq-kafka-double';

/**
 * Audit entries of a DLQ topic that was deleted and created again under its name (the audit
 * log kept), when the replay group's commits are gone: the new topic's records must be listed
 * (and replayed) although old entries name their offsets, whatever release wrote those entries.
 */
const clock = (() => {
  let now = 0;
  return { now: () => now, sleep: async (ms: number) => void (now += ms) };
})();

const DAY = 24 * 3_600_000;
/** When the old topic's records were replayed. */
const T0 = Date.parse('2026-01-10T00:00:00.000Z');

function setUp(): { consumer: ConsumerModel; double: DlqKafkaDouble } {
  const consumer = compile(aTopology({ consumers: [aConsumer({ ladder: ['1m', '10m'] })] })).model!.topologies[0]!.consumers[0]!;
  const double = new DlqKafkaDouble();
  for (const topic of [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit]) double.createTopic(topic.name, topic.partitions);
  return { consumer, double };
}

function appendTen(double: DlqKafkaDouble, consumer: ConsumerModel, tag: string): void {
  for (let i = 0; i < 10; i++) {
    double.append(consumer.dlq.name, i % 2, {
      key: `${tag}-${i}`,
      value: `${tag}-value-${i}`,
      headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: String(i % 2), [HEADERS.originalOffset]: String(100 + i), [HEADERS.errorClass]: 'DownstreamTimeout' },
    });
  }
}

/** An audit entry as `audit()` writes it; without `mark`, as the release before marks wrote it. */
function audited(double: DlqKafkaDouble, consumer: ConsumerModel, at: number, partition: number, offset: bigint, mark?: string): void {
  const value = { action: 'replayed', by: 'ops', at: new Date(at).toISOString(), consumer: consumer.name, dlqTopic: consumer.dlq.name, partition, offset: offset.toString(), ...(mark === undefined ? {} : { mark }) };
  double.append(consumer.dlqAudit.name, 0, { key: `${partition}:${offset}`, value: JSON.stringify(value) });
}

async function listed(double: DlqKafkaDouble, consumer: ConsumerModel): Promise<string[]> {
  const session = await DlqSession.open(double.kafka(), consumer);
  await session.close();
  return session.records.map((r) => r.value!.toString()).sort();
}

const fresh = (tag: string) => Array.from({ length: 10 }, (_, i) => `${tag}-value-${i}`).sort();

describe('the DLQ tools on a DLQ topic created again, its commits gone, the audit log holding an earlier release\'s entries (no mark)', () => {
  // Seen before the fix: every one of the new topic's records an old entry named an offset of
  // was listed as handled, never replayed, and the DLQ alerts were silent about it: an entry
  // without a mark was taken as this log's whatever record the log held at its offset.
  it('lists every record of the new topic whose time says it was written after the entry naming its offset', async () => {
    const { consumer, double } = setUp();
    double.stampFrom(T0 - DAY);
    appendTen(double, consumer, 'order');
    for (const m of double.messages(consumer.dlq.name)) audited(double, consumer, T0, m.partition, m.offset);
    double.recreateTopic(consumer.dlq.name, consumer.dlq.partitions);
    double.stampFrom(T0 + 30 * DAY);
    appendTen(double, consumer, 'fresh');
    expect(await listed(double, consumer)).toEqual(fresh('fresh'));
  });

  it('still never lists again a record of this log an earlier release replayed (its time before the entry\'s)', async () => {
    const { consumer, double } = setUp();
    double.stampFrom(T0 - DAY);
    appendTen(double, consumer, 'order');
    for (const m of double.messages(consumer.dlq.name)) if (m.offset < 3n) audited(double, consumer, T0, m.partition, m.offset);
    expect(await listed(double, consumer)).toEqual(['order-value-6', 'order-value-7', 'order-value-8', 'order-value-9']);
  });

  it('still takes an entry whose record the DLQ\'s producer stamped a few minutes ahead of the replaying host\'s clock', async () => {
    const { consumer, double } = setUp();
    double.stampFrom(T0 + 10 * 60_000);
    appendTen(double, consumer, 'order');
    for (const m of double.messages(consumer.dlq.name)) audited(double, consumer, T0, m.partition, m.offset);
    expect(await listed(double, consumer)).toEqual([]);
  });
});

describe('the DLQ tools on a DLQ topic created again whose new records carry older times than the old entries (a producer that keeps the original record\'s time)', () => {
  // Seen before the fix: the old topic's marked entries were left out (their records' marks
  // differ), but the earlier release's unmarked entries written before them were taken, so the
  // new records at those offsets were listed as handled. An entry written before one proven
  // to be of another log is of another log too: logs of one name follow each other in time.
  it('leaves out every entry written no later than an entry proven to be of another log', async () => {
    const { consumer, double } = setUp();
    double.stampFrom(T0 - 60 * DAY);
    appendTen(double, consumer, 'order');
    const old = double.messages(consumer.dlq.name);
    // Partition 0 replayed by the release before marks, partition 1 an hour later by this one.
    for (const m of old) if (m.partition === 0) audited(double, consumer, T0, m.partition, m.offset);
    for (const m of old) if (m.partition === 1) audited(double, consumer, T0 + 3_600_000, m.partition, m.offset, recordMark(m));
    double.recreateTopic(consumer.dlq.name, consumer.dlq.partitions);
    double.stampFrom(T0 - 30 * DAY);
    appendTen(double, consumer, 'renewed');
    expect(await listed(double, consumer)).toEqual(fresh('renewed'));
  });

  it('replays each of the new records once, then lists none', async () => {
    const { consumer, double } = setUp();
    double.stampFrom(T0 - 60 * DAY);
    appendTen(double, consumer, 'order');
    const old = double.messages(consumer.dlq.name);
    for (const m of old) if (m.partition === 0) audited(double, consumer, T0, m.partition, m.offset);
    for (const m of old) if (m.partition === 1) audited(double, consumer, T0 + 3_600_000, m.partition, m.offset, recordMark(m));
    double.recreateTopic(consumer.dlq.name, consumer.dlq.partitions);
    double.stampFrom(T0 - 30 * DAY);
    appendTen(double, consumer, 'renewed');
    const kafka = double.kafka();
    const session = await DlqSession.open(kafka, consumer);
    try {
      await replayRecords(kafka, session, session.records, { route: replayRoute(consumer), rate: 100, by: 'tester', clock });
    } finally {
      await session.close();
    }
    double.commits.delete(consumer.groups.replay);
    expect(await listed(double, consumer)).toEqual([]);
    expect(double.messages(consumer.tiers[0]!.name).map((m) => m.value!.toString()).sort()).toEqual(fresh('renewed'));
  });
});

describe('the DLQ tools on a DLQ topic created again whose new records have the old ones\' timestamps and sizes, offset for offset', () => {
  // What is seen: the old topic's entries (marked, by this release) are taken for the new
  // topic's records, which are listed as handled and never replayed. Why: a mark is the
  // record's timestamp and the sizes of its key and value; records of a producer that sets
  // the timestamps itself (a copy of the old topic, or the same source replayed) and whose
  // keys and values have the same sizes match it, and no record of the new topic is stamped
  // after the entries. Fix: a digest of the record's key, value and headers in the mark
  // (compared by prefix with the marks already written); it would still take a byte-for-byte
  // copy of the old records for them, which arguably they are. Left: no such producer writes
  // a DLQ the runtime writes (its dead letters are stamped when sent). Where the DLQ tools read
  // topic ids (the Confluent client installed), entries name the topic's id and this case is
  // closed (test/runtime/dlq-topic-ids.test.ts); this double, as kafkajs, reports none.
  it.failing('lists every record of the new topic', async () => {
    const { consumer, double } = setUp();
    double.stampFrom(T0 - DAY);
    appendTen(double, consumer, 'order');
    for (const m of double.messages(consumer.dlq.name)) audited(double, consumer, T0, m.partition, m.offset, recordMark(m));
    double.recreateTopic(consumer.dlq.name, consumer.dlq.partitions);
    double.stampFrom(T0 - DAY);
    appendTen(double, consumer, 'other');
    expect(await listed(double, consumer)).toEqual(fresh('other'));
  });
});
