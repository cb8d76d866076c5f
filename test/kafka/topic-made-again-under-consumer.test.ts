/**
 * A main topic deleted and created again under a running unordered consumer, on the real
 * broker: every record of the new log runs. The client's position is an offset of the old log,
 * valid on a new log as long, past its first records. Seen before ids: the Confluent client
 * (librdkafka sees the id change and only logs it) read the new log on from the old position,
 * and its first five records never ran.
 * - @platformatic/kafka names each fetch's topic id; the runtime reads a batch of another id
 *   from the new log's start (main-pipeline.ts readNewLogById).
 * - The Confluent adapter reads its topics' ids every 10 s (polled-topic-ids.ts), names the
 *   last one on each payload, and seeks a topic whose id changed to its start.
 * - kafkajs reads no ids and is not run here: whether it reads the new log from its start
 *   depends on whether the deletion makes it rejoin (then the group's commit is gone and it
 *   reads from the earliest offset) or it fetches on; both were seen on this broker
 *   (docs/runtime.md, "Topic ids").
 */
import type { Admin } from 'kafkajs';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import { eventually } from '../helpers/eventually';
import { createTopicsOf, kafkaAsAdmin, produceAsAdmin, testDescriptor } from '../helpers/kafka';
import { ADMIN_USER } from '../../scripts/kafka/broker';
import { CLIENTS, eachClientOrdering } from './clients';

jest.setTimeout(180_000);

async function makeAgain(admin: Admin, topic: string): Promise<void> {
  await admin.deleteTopics({ topics: [topic] });
  const deadline = Date.now() + 60_000;
  while (!(await createTopicsWithLeaders(admin, [{ topic, numPartitions: 1, replicationFactor: 1 }]).catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${topic} could not be created again within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

const READING_IDS = CLIENTS.filter((c) => c.name !== 'kafkajs');

eachClientOrdering('the main topic deleted and created again under a running consumer', (client, ordering) => {
  let consumer: RetryingConsumer | undefined;
  let admin: Admin | undefined;
  afterEach(async () => {
    await consumer?.stop();
    await admin?.disconnect();
    consumer = admin = undefined;
  });

  it('runs every record of the new log, also those below the old log\'s position', async () => {
    const d = { ...testDescriptor('madeagain', [1]), ordering };
    await createTopicsOf(d, 1);
    admin = kafkaAsAdmin().admin();
    await admin.connect();
    const ran = new Set<string>();
    consumer = createRetryingConsumer(d, { kafka: client.port(ADMIN_USER), handler: async (record) => void ran.add(record.message.value!.toString()) });
    await consumer.start();
    const old = Array.from({ length: 5 }, (_, i) => `old${i}`);
    await produceAsAdmin(d.mainTopic, old.map((value) => ({ key: value, value, partition: 0 })));
    await eventually('the old log ran', () => (old.every((v) => ran.has(v)) ? true : undefined), 60_000);
    await makeAgain(admin, d.mainTopic);
    const fresh = Array.from({ length: 8 }, (_, i) => `new${i}`);
    await produceAsAdmin(d.mainTopic, fresh.map((value) => ({ key: value, value, partition: 0 })));
    await eventually('every record of the new log ran', () => (fresh.every((v) => ran.has(v)) ? true : undefined), 90_000).catch((error: Error) => {
      throw new Error(`${error.message}; not run: ${fresh.filter((v) => !ran.has(v)).join(', ')}`);
    });
  });
}, READING_IDS);
