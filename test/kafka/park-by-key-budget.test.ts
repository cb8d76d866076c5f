import { ADMIN_USER } from '../../scripts/kafka/broker';
import { HEADERS } from '../../src/naming/headers';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import type { RetryEvent } from '../../src/runtime/events';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { eventually } from '../helpers/eventually';
import { createTopicsOf, kafkaAsAdmin, produceAsAdmin, testDescriptor } from '../helpers/kafka';
import { clientNamed } from './clients';

jest.setTimeout(180_000);

/**
 * Broker confirmation of test/runtime/attack-park-budget.test.ts. An operator replays 300
 * DLQ records (300 keys) through the first tier during an outage: each fails again into
 * the second tier and takes a hold (src/runtime/key-parking.ts, onTierRecord's
 * `if (!current)` branch), with no budget check. Past about 250 holds the state is larger
 * than the broker's offset.metadata.max.bytes (4096): the commit is refused
 * (OFFSET_METADATA_TOO_LARGE), the state is dropped, the tier record runs again and is
 * published again into the second tier, and its commit is refused again. Seen: the first
 * tier stuck at 276 of 300 and 380 records in the second tier after a minute (a duplicate
 * per turn, for as long as it runs), and every commit of main partition 0 (which carries
 * the state) refused with it. Now a replayed record takes a hold only where the state has
 * room: the others wait, uncommitted, until the second tier's records come due and end
 * their retries (the DLQ here: the outage lasts), which makes room for them.
 */
describe('park-by-key state past offset.metadata.max.bytes on a real broker, with kafkajs', () => {
  const kafkajs = clientNamed('kafkajs');
  let consumer: RetryingConsumer | undefined;
  afterEach(async () => {
    await consumer?.stop();
    consumer = undefined;
  });

  it('300 DLQ records replayed during an outage: each goes on to the second tier once, and the first tier is committed past all of them', async () => {
    const base = testDescriptor('atkb', [1, 15]);
    const d: ConsumerDescriptor = { ...base, ordering: 'park-by-key', groups: { ...base.groups, retry: base.groups.main } };
    await createTopicsOf(d, 1);
    const KEYS = 300;
    // The main partition's history: the records whose DLQ copies are replayed (they ran long ago).
    await produceAsAdmin(d.mainTopic, Array.from({ length: KEYS }, (_, i) => ({ key: `order-${i}`, value: 'old', partition: 0 })));
    const handled: string[] = [];
    let outage = false;
    const events: RetryEvent[] = [];
    consumer = createRetryingConsumer(d, {
      kafka: kafkajs.port(ADMIN_USER),
      onEvent: (e) => events.push(e),
      handler: async (record: ConsumedRecord) => {
        handled.push(`${record.message.key}:${record.message.value}`);
        if (outage) throw Object.assign(new Error('payment-svc 503'), { name: 'HTTPError', status: 503 });
      },
    });
    await consumer.start();
    await eventually('the main records handled', () => (handled.length >= KEYS ? true : undefined), 60_000);

    // What krt dlq replay's default route writes: the first tier, due now, the original partition and offset.
    outage = true;
    const producer = kafkaAsAdmin().producer();
    await producer.connect();
    await producer.send({
      topic: d.tiers[0]!.topic,
      acks: -1,
      messages: Array.from({ length: KEYS }, (_, i) => ({
        key: `order-${i}`,
        value: 'replayed',
        partition: 0,
        headers: {
          [HEADERS.attempt]: '2',
          [HEADERS.dueAt]: String(Date.now()),
          [HEADERS.originalTopic]: d.mainTopic,
          [HEADERS.originalPartition]: '0',
          [HEADERS.originalOffset]: String(i),
          [HEADERS.replayedFromDlq]: `${d.dlqTopic}/0:${i}`,
        },
      })),
    });
    await producer.disconnect();

    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    try {
      const tierCommitted = async () => {
        const [offsets] = await admin.fetchOffsets({ groupId: d.groups.main, topics: [d.tiers[0]!.topic] });
        return Number(offsets!.partitions[0]!.offset);
      };
      const secondTier = async () => Number((await admin.fetchTopicOffsets(d.tiers[1]!.topic))[0]!.high);
      // Those without room wait for the holds of the first ones to end (their 15 s in the second tier).
      await eventually('the first tier committed past every replayed record', async () => ((await tierCommitted()) >= KEYS ? true : undefined), 90_000).catch(() => undefined);
      expect({ firstTierCommitted: await tierCommitted(), secondTierRecords: await secondTier() }).toEqual({ firstTierCommitted: KEYS, secondTierRecords: KEYS });
    } finally {
      await admin.disconnect();
    }
  });
});
