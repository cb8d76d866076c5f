import { ConfigResourceTypes } from 'kafkajs';
import { ADMIN_USER } from '../../scripts/kafka/broker';
import type { RetryEvent } from '../../src/runtime/events';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import { createTopicsOf, kafkaAsAdmin, produceAsAdmin, testDescriptor } from '../helpers/kafka';
import { clientNamed } from './clients';

jest.setTimeout(120_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Broker confirmation of test/runtime/attack-copy-too-large.test.ts, with kafkajs: the tier and
 * DLQ topics keep max.message.bytes at 2,000; a 1,900-byte main record fits its topic, and its
 * tier copy (the same value plus the retry headers) does not. The broker refuses it for good
 * (MESSAGE_TOO_LARGE); the runtime tries it again and again.
 */
describe('attack: a failed record whose copies are larger than the tier and DLQ accept, on a real broker, with kafkajs', () => {
  let consumer: RetryingConsumer | undefined;
  afterEach(async () => {
    await consumer?.stop();
    consumer = undefined;
  });

  // DEFECT (publish-loop.ts:25-40): see the unit test. Seen: nothing committed on the main topic (-1) while
  // the 20 records after the big one succeed, and publish-failed (reason "other") repeats.
  it.failing('the main commit passes the big record within 20 s while the 20 records after it succeed', async () => {
    const d = testDescriptor('atklarge', [1]);
    await createTopicsOf(d, 1);
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    await admin.alterConfigs({
      validateOnly: false,
      resources: [d.tiers[0]!.topic, d.dlqTopic].map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configEntries: [{ name: 'max.message.bytes', value: '2000' }] })),
    });
    await produceAsAdmin(d.mainTopic, [{ key: 'k', value: `big${'x'.repeat(1_897)}`, partition: 0 }, ...Array.from({ length: 20 }, (_, i) => ({ key: `k${i}`, value: `v${i}`, partition: 0 }))]);
    const succeeded = new Set<string>();
    const failures: string[] = [];
    consumer = createRetryingConsumer(d, {
      kafka: clientNamed('kafkajs').port(ADMIN_USER),
      publishBackoff: { initialMs: 100, maxMs: 1_000 },
      onEvent: (e: RetryEvent) => void (e.type === 'publish-failed' && failures.push(e.reason)),
      handler: async (record) => {
        const value = record.message.value!.toString();
        if (value.startsWith('big')) throw Object.assign(new Error('503'), { name: 'HTTPError', status: 503 });
        succeeded.add(value);
      },
    });
    await consumer.start();
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) await sleep(500);
    const [offsets] = await admin.fetchOffsets({ groupId: d.groups.main, topics: [d.mainTopic] });
    await admin.disconnect();
    expect(succeeded.size).toBe(20);
    expect({ committed: offsets!.partitions[0]!.offset, publishFailures: failures.length > 5 ? 'many' : failures.length }).toEqual({ committed: '21', publishFailures: expect.anything() });
  });
});
