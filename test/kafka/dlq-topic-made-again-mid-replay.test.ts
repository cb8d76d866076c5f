/**
 * A DLQ topic deleted and created again under its name while a `krt dlq replay` session is
 * open (between its read and its first step): the session must not commit the old topic's
 * handled state over the new topic's records (src/dlq/same-log.ts), or they are listed as
 * handled, never replayed, and the DLQ alerts stay silent about them. With kafkajs alone the
 * session tells the new topic by its offsets (here: shorter than the old one); with topic ids
 * read through the Confluent client, as the CLI reads them (src/connection/topic-ids.ts), by
 * its id, even as long as the old one.
 */
import { randomBytes } from 'node:crypto';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';
import { replayRecords } from '../../src/dlq/replay';
import { replayRoute } from '../../src/dlq/replay-route';
import { DlqSession } from '../../src/dlq/session';
import { HEADERS } from '../../src/naming/headers';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { bootstrapServers, kafkaAsAdmin } from '../helpers/kafka';
import { confluentTopicIds, withTopicIds } from '../../src/connection/topic-ids';
import { ADMIN_USER, passwordOf } from '../../scripts/kafka/broker';

jest.setTimeout(180_000);

/** The ids as the CLI reads them; the Confluent client is built by the test set-up (scripts/tools/confluent.sh), and its absence fails the test. */
function confluentIds() {
  const read = confluentTopicIds({ brokers: bootstrapServers().split(','), ssl: false, sasl: { mechanism: 'plain', username: ADMIN_USER, password: passwordOf(ADMIN_USER) } });
  if (read === undefined) throw new Error('@confluentinc/kafka-javascript does not load here; run bash scripts/tools/confluent.sh');
  return read;
}

describe.each([
  { client: 'kafkajs alone (no topic ids): the new topic shorter than the old', ids: false, newPerPartition: 1 },
  { client: 'topic ids read through the Confluent client: the new topic as long as the old', ids: true, newPerPartition: 3 },
])('a replay session over a DLQ topic deleted and created again after it opened, $client', ({ ids, newPerPartition }) => {
  it('refuses to record its step as handled, and the new topic\'s records are all listed afterwards', async () => {
    const id = randomBytes(3).toString('hex');
    const consumer = compile(aTopology({ name: `again-${id}`, consumers: [aConsumer({ name: `again-${id}`, topic: { name: `again-${id}.main`, partitions: 2 }, ladder: ['1m'] })] })).model!.topologies[0]!
      .consumers[0]!;
    const kafka = ids ? withTopicIds(kafkaAsAdmin(), confluentIds()) : kafkaAsAdmin();
    const admin = kafka.admin();
    await admin.connect();
    const producer = kafka.producer();
    await producer.connect();
    const dlqTopic = { topic: consumer.dlq.name, numPartitions: 2, replicationFactor: 1 };
    const dead = (tag: string, partition: number, i: number) => ({
      key: `${tag}-${partition}-${i}`,
      value: `${tag}-${partition}-${i}`,
      partition,
      headers: { [HEADERS.attempt]: '1', [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: String(partition), [HEADERS.originalOffset]: String(i), [HEADERS.errorClass]: 'OrderValidationError' },
    });
    // One record a request, sent again while a topic just made refuses produce requests (NOT_LEADER_OR_FOLLOWER).
    const send = async (messages: ReturnType<typeof dead>[]) => {
      for (const message of messages) {
        const deadline = Date.now() + 30_000;
        for (;;) {
          try {
            await producer.send({ topic: consumer.dlq.name, acks: -1, messages: [message] });
            break;
          } catch (error) {
            if (!/not the leader/i.test(String((error as { cause?: unknown }).cause ?? error)) || Date.now() > deadline) throw error;
            await new Promise((resolve) => setTimeout(resolve, 500));
          }
        }
      }
    };
    let session: DlqSession | undefined;
    try {
      await createTopicsWithLeaders(admin, [
        ...[consumer.mainTopic.name, ...consumer.tiers.map((t) => t.name)].map((topic) => ({ topic, numPartitions: 2, replicationFactor: 1 })),
        dlqTopic,
        { topic: consumer.dlqAudit.name, numPartitions: 1, replicationFactor: 1 },
      ]);
      await send([0, 1, 2].flatMap((i) => [dead('old', 0, i), dead('old', 1, i)]));
      session = await DlqSession.open(kafka, consumer);
      expect(session.records).toHaveLength(6);
      expect(session.topicId === undefined).toBe(!ids);

      await admin.deleteTopics({ topics: [consumer.dlq.name] });
      const deadline = Date.now() + 60_000;
      while (!(await createTopicsWithLeaders(admin, [dlqTopic]).catch(() => false))) {
        if (Date.now() > deadline) throw new Error(`${consumer.dlq.name} could not be created again within 60 s`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      const fresh = Array.from({ length: newPerPartition }, (_, i) => [dead('new', 0, i), dead('new', 1, i)]).flat();
      await send(fresh);

      await expect(replayRecords(kafka, session, session.records.slice(0, 2), { route: replayRoute(consumer), rate: 100, by: 'test' })).rejects.toThrow(ids ? /topic id is .* so it was deleted and created again/ : /deleted and created again/);
      await session.close();
      session = await DlqSession.open(kafka, consumer);
      expect(session.records.map((r) => r.value!.toString()).sort()).toEqual(fresh.map((m) => m.value).sort());
      const [committed] = await admin.fetchOffsets({ groupId: consumer.groups.replay, topics: [consumer.dlq.name] });
      expect(committed!.partitions.map((p) => p.offset)).toEqual(['-1', '-1']);
    } finally {
      await session?.close();
      await producer.disconnect();
      await admin.disconnect();
    }
  });
});
