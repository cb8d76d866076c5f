import { randomBytes } from 'node:crypto';
import type { Admin } from 'kafkajs';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';
import { kafkajsMonitorPort } from '../../src/runtime/adapters/kafkajs-monitor';
import { kafkaAsAdmin } from '../helpers/kafka';

jest.setTimeout(120_000);

/**
 * Review h136: the monitor's read of the DLQ audit log (readFrom) on a real broker.
 */
describe('the monitor’s read of an audit log whose last offsets hold no record', () => {
  let admin: Admin;
  beforeAll(async () => {
    admin = kafkaAsAdmin().admin();
    await admin.connect();
  });
  afterAll(() => admin.disconnect());

  /** The end offset once the coordinator has written the last transaction's markers. */
  async function endOnce(topic: string, end: string): Promise<void> {
    for (let i = 0; i < 100; i++) {
      if ((await admin.fetchTopicOffsets(topic)).find((p) => p.partition === 0)?.high === end) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${topic} never reached ${end}`);
  }

  /*
   * Found (h136): readFrom waited for the record at each partition's end minus one. When that
   * offset holds no record a consumer sees (a transaction's commit marker, an aborted record:
   * an audit topic written by a transactional producer, a mirror with exactly-once), kafkajs
   * delivers nothing there, so every read ran to its deadline (4 x 15 s) and failed: each poll
   * that needed the audit log failed, its gauges dropped (KafkaRetryMonitorDown) for good.
   * Code at fault: src/runtime/adapters/kafkajs-monitor.ts readFrom (done only on a record at end - 1).
   * Class: a read to an end offset that waits for a record at the offset before it.
   * Fixed: readUntil hands kafkajs's END_BATCH_PROCESS (emitted too for fetches of markers or
   * aborted records only) to the read, and readFrom counts a partition read once a fetch has
   * covered the offset before its end, record or not.
   */
  it('ends once the offsets before the end are passed, when the last of them is a transaction marker or an aborted record', async () => {
    const topic = `h136-audit-${randomBytes(4).toString('hex')}`;
    await createTopicsWithLeaders(admin, [{ topic, numPartitions: 2, replicationFactor: 1 }]);
    const kafka = kafkaAsAdmin();
    const producer = kafka.producer({ transactionalId: `h136-${randomBytes(3).toString('hex')}`, idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    try {
      const inTransaction = async (values: string[], outcome: 'commit' | 'abort') => {
        const tx = await producer.transaction();
        await tx.send({ topic, acks: -1, messages: values.map((value) => ({ value, partition: 0 })) });
        await (outcome === 'commit' ? tx.commit() : tx.abort());
      };
      // Partition 0: 0, 1 records, 2 marker; 3 aborted, 4 marker. Partition 1: empty.
      await inTransaction(['a', 'b'], 'commit');
      await inTransaction(['c'], 'abort');
    } finally {
      await producer.disconnect();
    }
    await endOnce(topic, '5');
    const started = Date.now();
    const read = await kafkajsMonitorPort(kafka, `${topic}.dlq-monitor`, 5_000).readFrom!(topic, new Map());
    expect({ values: read.records.map((r) => r.value), ends: [...read.ends].sort(([a], [b]) => a - b), quick: Date.now() - started < 15_000 }).toEqual({
      values: ['a', 'b'],
      ends: [
        [0, '5'],
        [1, '0'],
      ],
      quick: true,
    });
  });

  /*
   * Found (h140): the head read (timestampsAt) had no such ending: a partition whose next
   * offset holds only markers (a transactional producer's commit marker after the last record
   * a group consumed) waited out the whole read at every poll. Fixed: given each partition's
   * end, it maps a partition read past it without a record to null.
   */
  it('reads the head of a partition whose next offset holds only transaction markers as no record, at once', async () => {
    const topic = `h140-head-${randomBytes(4).toString('hex')}`;
    await createTopicsWithLeaders(admin, [{ topic, numPartitions: 1, replicationFactor: 1 }]);
    const kafka = kafkaAsAdmin();
    const producer = kafka.producer({ transactionalId: `h140-${randomBytes(3).toString('hex')}`, idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    try {
      // 0, 1 records, 2 commit marker; 3 aborted, 4 abort marker.
      for (const [values, outcome] of [[['a', 'b'], 'commit'], [['c'], 'abort']] as const) {
        const tx = await producer.transaction();
        await tx.send({ topic, acks: -1, messages: values.map((value) => ({ value, partition: 0 })) });
        await (outcome === 'commit' ? tx.commit() : tx.abort());
      }
    } finally {
      await producer.disconnect();
    }
    await endOnce(topic, '5');
    const port = kafkajsMonitorPort(kafka, `${topic}.dlq-monitor`, 15_000);
    const started = Date.now();
    const markersOnly = await port.timestampsAt(topic, [{ partition: 0, offset: '2', end: '5' }]);
    const withRecord = await port.timestampsAt(topic, [{ partition: 0, offset: '1', end: '5' }]);
    expect({ markersOnly: [...markersOnly], recordFound: typeof withRecord.get(0), quick: Date.now() - started < 10_000 }).toEqual({ markersOnly: [[0, null]], recordFound: 'number', quick: true });
  });

  /*
   * Found (h136), left: `krt monitor` and a service's in-process monitor (NestJS, or
   * createDlqMonitor beside a worker) of one consumer read in one group, consumer.groups.monitor
   * (src/cli/monitor-command.ts; the NestJS option's documented port). Their reads join it as
   * members at once: the group gives each member some of the audit topic's partitions, and
   * readFrom waits for all of them, so one read (or both) runs to its deadline (4 x 15 s) and
   * fails the poll: gauges dropped, KafkaRetryMonitorDown, each time their polls meet; the head
   * reads (timestampsAt) come back without some partitions the same way and keep stale
   * oldest-record timestamps. A rebalance mid-read also seeks a member back (GROUP_JOIN seeks
   * every start again) and it hands records twice (harmless to the fold, not to memory).
   * Code at fault: src/runtime/adapters/kafkajs-monitor.ts readUntil, a one-shot read through a
   * group subscription in a group shared by every monitor of the consumer.
   * Class: a read that needs every partition made through a group that may have other members.
   * Fixed (h138): the monitor's reads join with the every-partition assigner
   * (src/runtime/adapters/every-partition-assigner.ts, as the DLQ readers do), so each member
   * gets every partition whoever else is in the group, and a rejoin seeks each partition where
   * the read got to. The ACL is unchanged: one group, READ. A monitor of an older release in
   * the group: test/kafka/monitor-group-protocols.test.ts.
   */
  it('two monitors of one consumer (krt monitor, and one in a service) read the audit log at once and both get to its end', async () => {
    const topic = `h136-two-${randomBytes(4).toString('hex')}`;
    await createTopicsWithLeaders(admin, [{ topic, numPartitions: 2, replicationFactor: 1 }]);
    const kafka = kafkaAsAdmin();
    const producer = kafka.producer();
    await producer.connect();
    // One partition a request: a request to both with one refused (NOT_LEADER_OR_FOLLOWER, a topic just made) writes the other's record, and kafkajs's retry writes it again.
    for (const partition of [0, 1]) await producer.send({ topic, acks: -1, messages: [{ value: `p${partition}`, partition }] });
    await producer.disconnect();
    const group = `${topic}.dlq-monitor`;
    const reads = await Promise.allSettled([kafkajsMonitorPort(kafka, group, 3_000).readFrom!(topic, new Map()), kafkajsMonitorPort(kafka, group, 3_000).readFrom!(topic, new Map())]);
    expect(reads.map((r) => (r.status === 'fulfilled' ? r.value.records.map((x) => x.value).sort() : String(r.reason)))).toEqual([
      ['p0', 'p1'],
      ['p0', 'p1'],
    ]);
  });
});
