import { discardRecords, replayRecords } from '../../src/dlq/replay';
import { replayRoute } from '../../src/dlq/replay-route';
import { DlqSession } from '../../src/dlq/session';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { DlqKafkaDouble } from './dlq-kafka-double';
import type { Operation } from './dlq-kafka-double';

/**
 * What happens to the replay group's commits or to the DLQ topic between the steps of a replay
 * or a discard (before its publish, before its audit entry, before its commit): a record is
 * never replayed twice, and every record of the DLQ as it is then that nobody handled is listed.
 */
const clock = (() => {
  let now = 0;
  return { now: () => now, sleep: async (ms: number) => void (now += ms) };
})();

function setUp(): { consumer: ConsumerModel; double: DlqKafkaDouble } {
  const consumer = compile(aTopology({ consumers: [aConsumer({ ladder: ['1m', '10m'] })] })).model!.topologies[0]!.consumers[0]!;
  const double = new DlqKafkaDouble();
  for (const topic of [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit]) double.createTopic(topic.name, topic.partitions);
  double.stampFrom(Date.now() - 86_400_000);
  appendTen(double, consumer, 'order');
  return { consumer, double };
}

function appendTen(double: DlqKafkaDouble, consumer: ConsumerModel, tag: string, count = 10): void {
  for (let i = 0; i < count; i++) {
    double.append(consumer.dlq.name, i % 2, {
      key: `${tag}-${i}`,
      value: `${tag}-value-${i}`,
      headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: String(i % 2), [HEADERS.originalOffset]: String(100 + i), [HEADERS.errorClass]: 'DownstreamTimeout' },
    });
  }
}

type Action = 'replay' | 'discard';

async function run(double: DlqKafkaDouble, consumer: ConsumerModel, action: Action, pick: (records: readonly import('../../src/dlq/session').DlqRecord[]) => readonly import('../../src/dlq/session').DlqRecord[] = (r) => r): Promise<void> {
  const kafka = double.kafka();
  const session = await DlqSession.open(kafka, consumer);
  try {
    if (action === 'replay') await replayRecords(kafka, session, pick(session.records), { route: replayRoute(consumer), rate: 100, by: 'tester', clock });
    else await discardRecords(kafka, session, pick(session.records), { reason: 'test', by: 'tester' });
  } finally {
    await session.close();
  }
}

async function listed(double: DlqKafkaDouble, consumer: ConsumerModel): Promise<string[]> {
  const session = await DlqSession.open(double.kafka(), consumer);
  await session.close();
  return session.records.map((r) => r.value!.toString()).sort();
}

const WHERE: readonly { name: string; at: (consumer: ConsumerModel, op: Operation) => boolean }[] = [
  { name: 'before its first publish', at: (c, op) => op.kind === 'send' && op.topic === c.tiers[0]!.name },
  { name: 'before its first audit entry', at: (c, op) => op.kind === 'send' && op.topic === c.dlqAudit.name },
  { name: 'as its first commit is sent', at: (c, op) => op.kind === 'commit' && op.group === c.groups.replay },
];

const recreatedAt = (double: DlqKafkaDouble, consumer: ConsumerModel, where: (typeof WHERE)[number], fresh: number) => {
  let done = false;
  double.fault = (op) => {
    if (done || !where.at(consumer, op)) return;
    done = true;
    double.recreateTopic(consumer.dlq.name, consumer.dlq.partitions);
    double.stampFrom(Date.now());
    appendTen(double, consumer, 'fresh', fresh);
  };
  return () => done;
};

const freshValues = (count: number) => Array.from({ length: count }, (_, i) => `fresh-value-${i}`).sort();

describe.each(['replay', 'discard'] as const)('a %s of half the DLQ, when the DLQ topic is deleted and created again (new records in it) at a step', (action) => {
  // Seen before the fix: the session committed the old topic's handled state (its first five
  // records of partition 0) to the replay group, whose offsets now name the new topic's: the
  // new topic's records 0 to 4 of partition 0 were never listed, never replayed, and its DLQ
  // alerts were silent. The session took the topic's log to be the one it read, whatever
  // happened to the topic between open and commit.
  it.each(WHERE.filter((w) => (action === 'replay' || !w.name.includes('publish')) && !w.name.includes('sent')).map((w) => [w.name, w] as const))('%s: lists every record of the new topic afterwards', async (_, where) => {
    const { consumer, double } = setUp();
    const done = recreatedAt(double, consumer, where, 6);
    await expect(run(double, consumer, action, (r) => r.slice(0, 5))).rejects.toThrow(/deleted and created again/);
    expect(done()).toBe(true);
    double.fault = () => {};
    expect(await listed(double, consumer)).toEqual(freshValues(6));
  });

  // What is seen: as above, when the new topic already holds as many records in each partition
  // as the old one had when the session opened (end offsets and log starts as read at open):
  // nothing the session can read cheaply tells the two logs apart (kafkajs 2.2.4 reads no topic
  // ids), and the old state is committed over the new records. Fix: read, before each commit,
  // the record at the highest offset of the step in each partition and compare its mark with
  // the one the session read (a reader group's join per step, seconds each on a broker), or a
  // client that reads topic ids (Metadata v10): the CLI reads them through the Confluent client
  // where it is installed, which closes this case (test/runtime/dlq-topic-ids.test.ts). Left,
  // without ids (kafkajs alone, as this double answers): a topic created again starts empty,
  // and a step lasts about a second.
  it.failing.each(WHERE.filter((w) => !w.name.includes('publish') && !w.name.includes('sent')).map((w) => [w.name, w] as const))('%s, the new topic already as long as the old one: lists every record of the new topic afterwards', async (_, where) => {
    const { consumer, double } = setUp();
    const done = recreatedAt(double, consumer, where, 10);
    await run(double, consumer, action, (r) => r.slice(0, 5)).catch(() => undefined);
    expect(done()).toBe(true);
    double.fault = () => {};
    expect(await listed(double, consumer)).toEqual(freshValues(10));
  });

  // What is seen: the topic deleted and created again in the moment between the session's
  // check of the topic's offsets (checkSameLog, in commit()) and the commit request itself:
  // the old state is committed over the new topic's records. Why: the check and the commit
  // are two requests; checking again after the commit and undoing it would also undo a
  // commit that was right whenever the check errs (a high watermark moved back by an unclean
  // leader election), replaying a whole partition again. Fix: a commit the broker ties to a
  // topic id (OffsetCommit v9+ with topic ids, which kafkajs does not send). Left: the window
  // is one round trip.
  it.failing('as its first commit is sent: lists every record of the new topic afterwards', async () => {
    const { consumer, double } = setUp();
    const done = recreatedAt(double, consumer, WHERE.find((w) => w.name.includes('sent'))!, 6);
    await run(double, consumer, action, (r) => r.slice(0, 5)).catch(() => undefined);
    expect(done()).toBe(true);
    double.fault = () => {};
    expect(await listed(double, consumer)).toEqual(freshValues(6));
  });
});

const DELETIONS: readonly { name: string; apply: (double: DlqKafkaDouble, consumer: ConsumerModel) => void }[] = [
  { name: 'the whole group\'s offsets', apply: (double, consumer) => void double.commits.delete(consumer.groups.replay) },
  { name: 'partition 0\'s offsets alone', apply: (double, consumer) => void double.commits.get(consumer.groups.replay)?.delete(`${consumer.dlq.name}:0`) },
];

describe.each(['replay', 'discard'] as const)('a %s run twice, when the replay group loses offsets at a step of the first run', (action) => {
  const cases = DELETIONS.flatMap((d) => WHERE.filter((w) => action === 'replay' || !w.name.includes('publish')).map((w) => [`${d.name} ${w.name}`, d, w] as const));
  it.each(cases)('%s: every record is handled once, and none is listed afterwards', async (_, deletion, where) => {
    const { consumer, double } = setUp();
    // Something handled before, so the group has commits to lose.
    await run(double, consumer, action, (r) => r.filter((x) => x.offset === 0n));
    let done = false;
    double.fault = (op) => {
      if (done || !where.at(consumer, op)) return;
      done = true;
      deletion.apply(double, consumer);
    };
    await run(double, consumer, action, (r) => r.slice(0, 5));
    expect(done).toBe(true);
    double.fault = () => {};
    deletion.apply(double, consumer);
    await run(double, consumer, action);
    deletion.apply(double, consumer);
    expect(await listed(double, consumer)).toEqual([]);
    if (action === 'replay') expect(double.messages(consumer.tiers[0]!.name).map((m) => m.value!.toString()).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `order-value-${i}`).sort());
  });
});

describe.each(['replay', 'discard'] as const)('a %s when retention deletes unhandled records and the group loses its offsets at a step', (action) => {
  it.each(WHERE.filter((w) => action === 'replay' || !w.name.includes('publish')).map((w) => [w.name, w] as const))(
    '%s: no record is handled twice, none is listed afterwards, and the audit log counts the same expired records as the group',
    async (_, where) => {
      const { consumer, double } = setUp();
      await run(double, consumer, action, (r) => r.filter((x) => x.offset === 0n));
      let done = false;
      double.fault = (op) => {
        if (done || !where.at(consumer, op)) return;
        done = true;
        double.deleteBelow(consumer.dlq.name, 1, 3n);
        double.commits.delete(consumer.groups.replay);
      };
      await run(double, consumer, action, (r) => r.filter((x) => x.partition === 0));
      expect(done).toBe(true);
      double.fault = () => {};
      await run(double, consumer, action);
      const fromGroup = await DlqSession.open(double.kafka(), consumer);
      await fromGroup.close();
      double.commits.delete(consumer.groups.replay);
      const fromAudit = await DlqSession.open(double.kafka(), consumer);
      await fromAudit.close();
      expect({ listed: fromAudit.records.length, expired: fromAudit.expired, backlog: fromAudit.backlog }).toEqual({ listed: 0, expired: fromGroup.expired, backlog: fromGroup.backlog });
      expect(fromGroup.expired.map((e) => [e.partition, e.total])).toEqual([[1, 2]]);
      if (action === 'replay') {
        const published = double.messages(consumer.tiers[0]!.name).map((m) => m.value!.toString());
        expect(published.length).toBe(new Set(published).size);
      }
    },
  );
});

describe('the audit log truncated by its retention while the replay group has no commit', () => {
  // Three records discarded, then deleted by the DLQ's retention, then their entries deleted by
  // the audit log's: once the group's offsets are gone too, the fallback counted them as records
  // that expired unhandled (3, where the group counted 0), and the first replay or discard
  // committed and audited that count: kafka_dlq_expired_total jumped, and its alert paged for
  // records that were handled. Each step now writes its partitions' floor (`handled-below`,
  // src/dlq/audit.ts) last, which outlives the entries of the records below it.
  const auditKeys = (double: DlqKafkaDouble, consumer: ConsumerModel) => double.messages(consumer.dlqAudit.name).map((m) => m.key!.toString()).sort();
  /** The audit log's retention deleting these entries (and every one before them in their partitions). */
  const ageOut = (double: DlqKafkaDouble, consumer: ConsumerModel, entries: ReturnType<DlqKafkaDouble['messages']>) => {
    for (const m of entries) double.deleteBelow(consumer.dlqAudit.name, m.partition, m.offset + 1n);
  };
  /** A session opened once Kafka deleted the replay group's offsets: its state rebuilt from the audit log. */
  const openedFromAudit = async (double: DlqKafkaDouble, consumer: ConsumerModel) => {
    double.commits.delete(consumer.groups.replay);
    const session = await DlqSession.open(double.kafka(), consumer);
    await session.close();
    return session;
  };

  it('counts the same expired records as the group did', async () => {
    const { consumer, double } = setUp();
    await run(double, consumer, 'discard', (r) => r.filter((x) => x.partition === 1));
    double.deleteBelow(consumer.dlq.name, 1, 3n);
    const fromGroup = await DlqSession.open(double.kafka(), consumer);
    await fromGroup.close();
    expect(fromGroup.expired).toEqual([]);
    const aged = double.messages(consumer.dlqAudit.name).filter((m) => ['1:0', '1:1', '1:2'].includes(m.key!.toString()));
    expect(aged).toHaveLength(3);
    ageOut(double, consumer, aged);
    expect(auditKeys(double, consumer)).toEqual(['1:3', '1:4', '1:handled-below-5']);
    const fromAudit = await openedFromAudit(double, consumer);
    expect(fromAudit.records.map((r) => r.id)).toEqual(['0:0', '0:1', '0:2', '0:3', '0:4']);
    expect(fromAudit.expired).toEqual([]);
  });

  it("counts none of an earlier command's records as expired once every entry it wrote aged out, by a later command's floor", async () => {
    const { consumer, double } = setUp();
    await run(double, consumer, 'discard', (r) => r.filter((x) => x.partition === 1 && x.offset < 3n));
    const first = double.messages(consumer.dlqAudit.name);
    expect(first.map((m) => m.key!.toString()).sort()).toEqual(['1:0', '1:1', '1:2', '1:handled-below-3']);
    await run(double, consumer, 'discard', (r) => r.filter((x) => x.partition === 1));
    double.deleteBelow(consumer.dlq.name, 1, 3n);
    ageOut(double, consumer, first);
    // The second command's: the floors it found at its start, its records, its step's floor.
    expect(auditKeys(double, consumer)).toEqual(['1:3', '1:4', '1:handled-below-3', '1:handled-below-5']);
    const fromAudit = await openedFromAudit(double, consumer);
    expect(fromAudit.records.map((r) => r.id)).toEqual(['0:0', '0:1', '0:2', '0:3', '0:4']);
    expect(fromAudit.expired).toEqual([]);
  });

  it('still counts the records that expired unhandled above the last floor', async () => {
    const { consumer, double } = setUp();
    await run(double, consumer, 'discard', (r) => r.filter((x) => x.partition === 1 && x.offset < 2n));
    double.deleteBelow(consumer.dlq.name, 1, 4n);
    const fromAudit = await openedFromAudit(double, consumer);
    expect(fromAudit.expired.map((e) => [e.partition, e.total])).toEqual([[1, 2]]);
  });

  it('never hides a record of this log behind a floor an entry claims above its log start (an earlier topic of the name, a stray writer)', async () => {
    const { consumer, double } = setUp();
    const stray = (partition: number, belowOffset: string) =>
      double.append(consumer.dlqAudit.name, 0, {
        key: `${partition}:handled-below-${belowOffset}`,
        value: JSON.stringify({ action: 'handled-below', dlqTopic: consumer.dlq.name, consumer: consumer.name, partition, belowOffset, expiredTotal: '0', at: new Date(0).toISOString() }),
      });
    stray(0, '5');
    stray(1, '3');
    double.deleteBelow(consumer.dlq.name, 1, 1n);
    const session = await DlqSession.open(double.kafka(), consumer);
    await session.close();
    expect(session.records.map((r) => r.id)).toEqual(['0:0', '0:1', '0:2', '0:3', '0:4', '1:1', '1:2', '1:3', '1:4']);
  });
});
