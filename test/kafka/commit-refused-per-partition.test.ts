import { randomBytes } from 'node:crypto';
import { kafkaAsAdmin } from '../helpers/kafka';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';

jest.setTimeout(120_000);

/**
 * Broker confirmation of the premise of test/runtime/park-state-stored-before-tier-commits.test.ts: Kafka
 * checks offset.metadata.max.bytes (4096 here) per partition. A commit request whose metadata
 * is too large for one partition stores the others of the same request, and kafkajs throws
 * OFFSET_METADATA_TOO_LARGE for the whole call (a KafkaJSNonRetriableError whose cause is the
 * protocol error). Key parking used to commit "the main state and the tier record in one
 * request" as if it were atomic; it now commits the state first, the tier offsets after.
 */
describe('a commit request refused as too large for one partition, on a real broker, with kafkajs', () => {
  it('stores the other partitions of the same request', async () => {
    const kafka = kafkaAsAdmin();
    const topic = `attack-partial-${randomBytes(4).toString('hex')}`;
    const groupId = `${topic}-group`;
    const admin = kafka.admin();
    await admin.connect();
    await createTopicsWithLeaders(admin, [{ topic, numPartitions: 2, replicationFactor: 1 }]);
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: [{ value: 'a', partition: 0 }, { value: 'b', partition: 1 }] });
    await producer.disconnect();

    const consumer = kafka.consumer({ groupId });
    let refusal: unknown;
    let tried = false;
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: async () => {
        if (tried) return;
        tried = true;
        // As key parking's release: the main partition's state (too large) and a tier partition's offset, one request.
        await consumer.commitOffsets([
          { topic, partition: 0, offset: '1', metadata: 'x'.repeat(5_000) },
          { topic, partition: 1, offset: '1' },
        ]).catch((error: unknown) => void (refusal = error));
      },
    });
    const deadline = Date.now() + 60_000;
    while (refusal === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    await consumer.disconnect();
    const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
    await admin.disconnect();
    const byPartition = Object.fromEntries(offsets!.partitions.map((p) => [p.partition, p.offset]));
    const e = refusal as { name?: string; type?: string; message?: string; cause?: { type?: string } } | undefined;
    expect({ refused: `${e?.name} ${e?.type ?? e?.cause?.type ?? ''} ${e?.message}`, partition0: byPartition[0], partition1: byPartition[1] }).toEqual({ refused: expect.stringMatching(/OFFSET_METADATA_TOO_LARGE|metadata field of the offset request was too large/), partition0: '-1', partition1: '1' });
  });
});
