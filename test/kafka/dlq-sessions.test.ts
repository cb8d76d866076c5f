import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { Admin, Kafka } from 'kafkajs';
import { compileFiles } from '../../src/compile';
import { consumerDescriptor } from '../../src/model/consumer-descriptor';
import { discoverTopologyFiles } from '../../src/load/load-topologies';
import type { ConsumerModel } from '../../src/model/types';
import { dlqReaderGroupName } from '../../src/naming';
import { HEADERS } from '../../src/naming/headers';
import { replayRecords } from '../../src/dlq/replay';
import { replayRoute } from '../../src/dlq/replay-route';
import { DlqSession } from '../../src/dlq/session';
import { kafkajsMonitorPort } from '../../src/runtime/adapters/kafkajs-monitor';
import { createDlqMonitor } from '../../src/runtime/monitor';
import { kafkaAsAdmin } from '../helpers/kafka';
import { ScratchProject } from '../helpers/project';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';

jest.setTimeout(300_000);

/**
 * The DLQ tools against what the in-memory double cannot show: kafkajs's own rejoin of the
 * reader group while a session reads, and a DLQ written in transactions (commit markers
 * and aborted records take offsets no consumer sees). Fresh consumers and topics, as the admin.
 */
async function project(): Promise<ConsumerModel[]> {
  const id = randomBytes(3).toString('hex');
  const scratch = new ScratchProject(false);
  mkdirSync(scratch.path('topologies'));
  const consumer = (name: string) => `{ name: '${name}-${id}', topic: { name: 'ds-${id}.${name}', partitions: 3 }, principal: 'User:billing', ladder: ['1m'] }`;
  scratch.write(
    'topologies/sessions.ts',
    `import { defineTopology } from 'kafka-retry-topology';
export default defineTopology({
  name: 'sessions',
  owner: { team: 'billing', onCall: '#billing-oncall' },
  runbookBaseUrl: 'https://runbooks.example.com',
  consumers: [${consumer('rejoin')}, ${consumer('txn')}, ${consumer('expiry')}],
});
`,
  );
  const result = await compileFiles(discoverTopologyFiles(scratch.dir), scratch.dir);
  if (!result.model) throw new Error(`the topology does not compile: ${JSON.stringify(result.diagnostics)}`);
  const consumers = result.model.topologies[0]!.consumers.slice();
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  await createTopicsWithLeaders(admin, consumers.flatMap((c) => [c.mainTopic, ...c.tiers, c.dlq, c.dlqAudit].map((t) => ({ topic: t.name, numPartitions: t.partitions, replicationFactor: 1 }))));
  await admin.disconnect();
  return consumers;
}

function dlqRecord(consumer: ConsumerModel, partition: number, n: number) {
  return {
    partition,
    key: `order-${n}`,
    value: `value-${n}-${'x'.repeat(200)}`,
    headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: String(partition), [HEADERS.originalOffset]: String(n), [HEADERS.errorClass]: 'DownstreamTimeout', [HEADERS.attempt]: '1' },
  };
}

/** Every record of a topic (read from the beginning to its end offsets), by x-replayed-from-dlq. */
async function replayedIds(kafka: Kafka, admin: Admin, topic: string): Promise<string[]> {
  const expected = (await admin.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high), 0);
  const ids: string[] = [];
  if (expected === 0) return ids;
  const consumer = kafka.consumer({ groupId: `check-${randomBytes(3).toString('hex')}` });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await new Promise<void>((resolve, reject) => {
    consumer
      .run({
        eachMessage: async ({ message }) => {
          ids.push(String(message.headers?.[HEADERS.replayedFromDlq]).split('/')[1]!);
          if (ids.length >= expected) resolve();
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  return ids.sort();
}

/**
 * The admin's Kafka, whose DLQ reader reads in small fetches, slowly, and counts its joins:
 * so that another reader joining makes kafkajs rejoin while this one is mid-partition.
 */
function slowReader(kafka: Kafka, readerGroup: string, joins: { count: number }): Kafka {
  return new Proxy(kafka, {
    get(target, property) {
      if (property !== 'consumer') return Reflect.get(target, property);
      return (options: Parameters<Kafka['consumer']>[0]) => {
        if (options.groupId !== readerGroup) return target.consumer(options);
        const inner = target.consumer({ ...options, maxBytesPerPartition: 4096 });
        inner.on(inner.events.GROUP_JOIN, () => void joins.count++);
        return {
          ...inner,
          run: (config: Parameters<typeof inner.run>[0]) =>
            inner.run({
              ...config,
              eachBatch: async (payload) => {
                await new Promise((resolve) => setTimeout(resolve, 100));
                await config!.eachBatch!(payload);
              },
            }),
        };
      };
    },
  });
}

describe('krt dlq sessions on a real broker', () => {
  let consumers: ConsumerModel[];
  let admin: Admin;
  const kafka = kafkaAsAdmin();

  beforeAll(async () => {
    consumers = await project();
    admin = kafka.admin();
    await admin.connect();
  });
  afterAll(async () => {
    await admin.disconnect();
  });

  it('a rejoin of the reader group mid-read (another session starts reading) lists each record once, and replay of them all publishes each once', async () => {
    const consumer = consumers[0]!;
    // Idempotent: a send retried after a timeout on a loaded machine must not write a record twice (seen: 1,504 of 1,500).
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const records = Array.from({ length: 1500 }, (_, n) => dlqRecord(consumer, n % 3, n));
    // Small sends, so that the log holds small record batches and the reader's fetches are small.
    for (let start = 0; start < records.length; start += 6) await producer.send({ topic: consumer.dlq.name, acks: -1, messages: records.slice(start, start + 6) });
    await producer.disconnect();
    const joins = { count: 0 };
    const slow = slowReader(kafka, dlqReaderGroupName(consumer.groups.replay), joins);
    const opening = DlqSession.open(slow, consumer, 120_000);
    // Once the slow reader has joined and started, a second session joins the same reader group.
    for (const started = Date.now(); joins.count === 0 && Date.now() - started < 60_000; ) await new Promise((resolve) => setTimeout(resolve, 100));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const other = await DlqSession.open(kafka, consumer, 120_000);
    await other.close();
    const session = await opening;
    const listed = session.records.map((r) => r.id);
    try {
      await replayRecords(kafka, session, session.records, { route: replayRoute(consumer), rate: 100_000, by: 'test' });
    } finally {
      await session.close();
    }
    const expected = records.map((r, n) => `${r.partition}:${Math.floor(n / 3)}`).sort();
    expect({ rejoined: joins.count >= 2, listed: listed.length, unique: new Set(listed).size, other: other.records.length }).toEqual({ rejoined: true, listed: 1500, unique: 1500, other: 1500 });
    expect(await replayedIds(kafka, admin, consumer.tiers[0]!.name)).toEqual(expected);
  });

  it('a replay while another command holds the consumer is refused and publishes nothing; once that one ends, it runs', async () => {
    const consumer = consumers[0]!;
    const holder = await DlqSession.open(kafka, consumer, 60_000);
    const tierBefore = (await admin.fetchTopicOffsets(consumer.tiers[0]!.name)).reduce((n, p) => n + Number(p.high), 0);
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: consumer.dlq.name, acks: -1, messages: [dlqRecord(consumer, 1, 9000)] });
    await producer.disconnect();
    const late = await DlqSession.open(kafka, consumer, 60_000);
    let refused = '';
    try {
      await holder.hold();
      refused = await replayRecords(kafka, late, late.records, { route: replayRoute(consumer), rate: 1000, by: 'late' }).then(String, (e: Error) => e.message);
    } finally {
      await holder.close();
    }
    const result = await replayRecords(kafka, late, late.records, { route: replayRoute(consumer), rate: 1000, by: 'late' }).finally(() => late.close());
    const tierAfter = (await admin.fetchTopicOffsets(consumer.tiers[0]!.name)).reduce((n, p) => n + Number(p.high), 0);
    expect({ refused, replayed: result.replayed, published: tierAfter - tierBefore }).toEqual({
      refused: expect.stringMatching(new RegExp(`^another krt dlq command is replaying or discarding records of ${consumer.name} \\(.+ in group ${consumer.groups.replay.replace(/\./g, '\\.')}\\); nothing was published`)),
      replayed: 1,
      published: 1,
    });
  });

  /** Partition 0's offsets once its end reaches `end`, or as they are after 10 s (the assertion then shows them). */
  async function endOfPartition0Once(topic: string, end: string) {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const p0 = (await admin.fetchTopicOffsets(topic)).find((p) => p.partition === 0);
      if (p0?.high === end || Date.now() > deadline) return p0;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('a DLQ written in transactions (commit markers, an aborted record): the session lists the committed records, and once they are replayed nothing is left and kafka_dlq_size is 0', async () => {
    const consumer = consumers[1]!;
    const producer = kafka.producer({ transactionalId: `ds-${randomBytes(3).toString('hex')}`, idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const inTransaction = async (n: number[], outcome: 'commit' | 'abort') => {
      const tx = await producer.transaction();
      await tx.send({ topic: consumer.dlq.name, acks: -1, messages: n.map((i) => dlqRecord(consumer, 0, i)) });
      await (outcome === 'commit' ? tx.commit() : tx.abort());
    };
    // Offsets of partition 0: 0, 1 records, 2 marker; 3 aborted, 4 marker; 5 record, 6 marker.
    await inTransaction([0, 1], 'commit');
    await inTransaction([2], 'abort');
    await inTransaction([3], 'commit');
    await producer.disconnect();
    // The coordinator writes a commit's markers after it answers the commit: until the last one
    // is in, the end offset kafkajs reads (the last stable offset) stops before the open transaction.
    const p0 = await endOfPartition0Once(consumer.dlq.name, '7');
    const session = await DlqSession.open(kafka, consumer, 30_000);
    const listed = session.records.map((r) => `${r.id} ${r.key?.toString()}`);
    try {
      await replayRecords(kafka, session, session.records, { route: replayRoute(consumer), rate: 1000, by: 'test' });
    } finally {
      await session.close();
    }
    const again = await DlqSession.open(kafka, consumer, 30_000);
    await again.close();
    const monitor = createDlqMonitor(consumerDescriptor(consumer), { port: kafkajsMonitorPort(kafka, consumer.groups.monitor) });
    const snapshot = await monitor.poll();
    const [committed] = await admin.fetchOffsets({ groupId: consumer.groups.replay, topics: [consumer.dlq.name] });
    expect({ end: p0!.high, listed, left: again.records.length, dlqSize: snapshot.dlqSize, committed: committed!.partitions.find((p) => p.partition === 0)!.offset }).toEqual({
      end: '7',
      listed: ['0:0 order-0', '0:1 order-1', '0:5 order-3'],
      left: 0,
      dlqSize: 0,
      committed: '7',
    });
  });

  it('the replay group\'s offsets deleted by Kafka (offsets.retention.minutes): the next session lists only what no replay or discard handled, from the audit log, and its replay publishes only those', async () => {
    const consumer = consumers[2]!;
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    await producer.send({ topic: consumer.dlq.name, acks: -1, messages: Array.from({ length: 9 }, (_, n) => dlqRecord(consumer, n % 3, n)) });
    await producer.disconnect();
    const tierRecords = async () => (await admin.fetchTopicOffsets(consumer.tiers[0]!.name)).reduce((n, p) => n + Number(p.high), 0);

    const first = await DlqSession.open(kafka, consumer, 60_000);
    const handled = first.records.filter((r) => r.partition === 0 || r.id === '1:0');
    await replayRecords(kafka, first, handled, { route: replayRoute(consumer), rate: 1000, by: 'test' }).finally(() => first.close());
    expect(handled.map((r) => r.id).sort()).toEqual(['0:0', '0:1', '0:2', '1:0']);
    // What Kafka does to an empty group's offsets after offsets.retention.minutes (7 days by default).
    await admin.deleteGroups([consumer.groups.replay]);
    expect(await admin.fetchOffsets({ groupId: consumer.groups.replay, topics: [consumer.dlq.name] })).toEqual([
      { topic: consumer.dlq.name, partitions: expect.arrayContaining([expect.objectContaining({ offset: '-1' })]) },
    ]);

    const published = await tierRecords();
    const second = await DlqSession.open(kafka, consumer, 60_000);
    const listed = second.records.map((r) => r.id).sort();
    await replayRecords(kafka, second, second.records, { route: replayRoute(consumer), rate: 1000, by: 'test' }).finally(() => second.close());
    const third = await DlqSession.open(kafka, consumer, 60_000);
    await third.close();
    expect({ listed, publishedAgain: (await tierRecords()) - published, left: third.records.length }).toEqual({
      listed: ['1:1', '1:2', '2:0', '2:1', '2:2'],
      publishedAgain: 5,
      left: 0,
    });
  });
});
