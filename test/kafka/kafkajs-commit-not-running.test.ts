/**
 * #28 finding 2, on the broker: kafkajs's commitOffsets() resolves without committing once its
 * consumer's runner stopped (a crash, an outage that outlasted its retries). Seen in the outage
 * test: a commit sent as the broker was killed resolved during the outage, nothing was stored,
 * and the runtime, taking it as acknowledged, ran again all 3,000 records it had finished.
 * The adapter counts a commit done only when kafkajs reports the coordinator accepted it.
 */
import { randomUUID } from 'node:crypto';
import { kafkajsPort } from '../../src/runtime/adapters/kafkajs';
import { eventually } from '../helpers/eventually';
import { kafkaAsAdmin } from '../helpers/kafka';

jest.setTimeout(60_000);

async function freshTopic(): Promise<string> {
  const topic = `commit-not-running-${randomUUID().slice(0, 8)}`;
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
  await admin.disconnect();
  return topic;
}

async function committedOf(groupId: string, topic: string): Promise<string> {
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
  await admin.disconnect();
  return offsets!.partitions[0]!.offset;
}

/** A plain kafkajs member of `groupId` on `topic`, joined, then stopped (its runner no longer runs). */
async function joinedThenStopped(topic: string, groupId: string) {
  const consumer = kafkaAsAdmin().consumer({ groupId });
  let joined = false;
  consumer.on(consumer.events.GROUP_JOIN, () => (joined = true));
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({ autoCommit: false, eachBatch: async () => {} });
  await eventually('the member to join', () => (joined ? true : undefined));
  await consumer.stop();
  return consumer;
}

describe('a kafkajs commit made while its consumer is not running', () => {
  it('is answered by kafkajs as if done, yet the broker stores nothing (the client behaviour the adapter guards against)', async () => {
    const topic = await freshTopic();
    const groupId = `g-${randomUUID().slice(0, 8)}`;
    const consumer = await joinedThenStopped(topic, groupId);
    await expect(consumer.commitOffsets([{ topic, partition: 0, offset: '5' }])).resolves.toBeUndefined();
    expect(await committedOf(groupId, topic)).toBe('-1');
    await consumer.disconnect();
  });

  it('is refused by the adapter, so the committer keeps it and sends it again, while a commit of the running consumer is done', async () => {
    const topic = await freshTopic();
    const groupId = `g-${randomUUID().slice(0, 8)}`;
    const port = kafkajsPort(kafkaAsAdmin());
    const member = port.consumer(groupId);
    let joined = false;
    member.onRebalance(() => (joined = true));
    await member.connect();
    await member.subscribe({ topics: [topic], fromBeginning: true });
    await member.run({ eachBatch: async () => {} });
    await eventually('the member to join', () => (joined ? true : undefined));
    await expect(member.commitOffsets([{ topic, partition: 0, offset: '1' }])).resolves.toBeUndefined();
    expect(await committedOf(groupId, topic)).toBe('1');

    await member.disconnect();
    await expect(member.commitOffsets([{ topic, partition: 0, offset: '5' }])).rejects.toThrow(/kafkajs did not commit .*-0 at offset 5: its consumer was not running/);
    expect(await committedOf(groupId, topic)).toBe('1');
  });
});
