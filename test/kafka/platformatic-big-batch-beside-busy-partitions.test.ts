import { ADMIN_USER } from '../../scripts/kafka/broker';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import { eventually } from '../helpers/eventually';
import { createTopicsOf, kafkaAsAdmin, testDescriptor } from '../helpers/kafka';
import { clientNamed, thisNode } from './clients';

jest.setTimeout(120_000);

/**
 * The @platformatic/kafka adapter fetches 256 KiB a main partition (platformatic.ts). A record
 * batch larger than that comes back only when its partition is the first of a fetch with data
 * (KIP-74), so a partition holding one, last in the request behind partitions that always have
 * records, could wait for good. Here a 600 KB batch sits on the last of six partitions while the
 * other five have a backlog and a steady trickle: every record of the batch is handled, soon.
 */
const platformatic = clientNamed('@platformatic/kafka');
const unavailable = platformatic.unavailable(thisNode());
(unavailable ? describe.skip : describe)(`the @platformatic/kafka adapter on a real broker: a batch over the fetch size${unavailable ? ` (${unavailable})` : ''}`, () => {
  let consumer: RetryingConsumer | undefined;
  let trickling = false;
  afterEach(async () => {
    trickling = false;
    await consumer?.stop().catch(() => undefined);
    consumer = undefined;
  });

  it('is read on a partition behind five busy ones, every record of it', async () => {
    const d = testDescriptor('big-batch', [60]);
    await createTopicsOf(d, 6);
    const producer = kafkaAsAdmin().producer();
    await producer.connect();
    const value = 'x'.repeat(512);
    try {
      for (let partition = 0; partition < 5; partition++) {
        for (let batch = 0; batch < 10; batch++) await producer.send({ topic: d.mainTopic, acks: -1, messages: Array.from({ length: 200 }, () => ({ value, partition })) });
      }
      // One produce call: one batch of about 600 KB on partition 5.
      await producer.send({ topic: d.mainTopic, acks: -1, messages: Array.from({ length: 1_200 }, () => ({ value, partition: 5 })) });
      trickling = true;
      const trickle = (async () => {
        while (trickling) {
          await producer.send({ topic: d.mainTopic, acks: -1, messages: [0, 1, 2, 3, 4].map((partition) => ({ value, partition })) });
          await new Promise((r) => setTimeout(r, 5));
        }
      })();
      const handled = new Map<number, number>();
      consumer = createRetryingConsumer(d, {
        kafka: platformatic.port(ADMIN_USER),
        handler: async (record) => void handled.set(record.partition, (handled.get(record.partition) ?? 0) + 1),
      });
      await consumer.start();
      await eventually('every record of the big batch', () => ((handled.get(5) ?? 0) >= 1_200 ? true : undefined), 30_000);
      expect(handled.get(5)).toBe(1_200);
      // The busy partitions went on meanwhile.
      for (let partition = 0; partition < 5; partition++) expect(handled.get(partition) ?? 0).toBeGreaterThan(0);
      trickling = false;
      await trickle;
    } finally {
      trickling = false;
      await producer.disconnect();
    }
  });
});
