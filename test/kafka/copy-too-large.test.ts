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
 * Found by an attack (s25), kept as the regression, with kafkajs on a real broker: the tier
 * and DLQ topics keep max.message.bytes at 2,000; a 1,900-byte main record fits its topic,
 * and its copies (the same value plus the retry headers) do not. The broker refuses them for
 * good (MESSAGE_TOO_LARGE); the runtime used to try them again and again as if the broker
 * were down, the main commit never passing the record while the records after it ran.
 * Now (docs/runtime.md, "A copy too large"): trimmed, then the DLQ, then held, and it goes
 * on by itself once the DLQ's limit is raised.
 */
describe('a failed record whose copies are larger than the tier and DLQ accept, on a real broker, with kafkajs', () => {
  let consumer: RetryingConsumer | undefined;
  afterEach(async () => {
    await consumer?.stop();
    consumer = undefined;
  });

  it('is held with a publish-held event, each refusal reported as too-large, and goes to the DLQ once its limit is raised; the main commit then passes it', async () => {
    const d = testDescriptor('atklarge', [1]);
    await createTopicsOf(d, 1);
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    const limit = (names: string[], bytes: number) =>
      admin.alterConfigs({ validateOnly: false, resources: names.map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configEntries: [{ name: 'max.message.bytes', value: String(bytes) }] })) });
    await limit([d.tiers[0]!.topic, d.dlqTopic], 2_000);
    await produceAsAdmin(d.mainTopic, [{ key: 'k', value: `big${'x'.repeat(1_897)}`, partition: 0 }, ...Array.from({ length: 20 }, (_, i) => ({ key: `k${i}`, value: `v${i}`, partition: 0 }))]);
    const succeeded = new Set<string>();
    const failures: string[] = [];
    let held = 0;
    consumer = createRetryingConsumer(d, {
      kafka: clientNamed('kafkajs').port(ADMIN_USER),
      publishBackoff: { initialMs: 100, maxMs: 1_000 },
      onEvent: (e: RetryEvent) => {
        if (e.type === 'publish-failed') failures.push(e.reason);
        if (e.type === 'publish-held') held++;
      },
      handler: async (record) => {
        const value = record.message.value!.toString();
        if (value.startsWith('big')) throw Object.assign(new Error('503'), { name: 'HTTPError', status: 503 });
        succeeded.add(value);
      },
    });
    await consumer.start();
    const heldBy = Date.now() + 30_000;
    while (held === 0 && Date.now() < heldBy) await sleep(250);
    await sleep(3_000); // held: tried about once a second
    const whileHeld = { held, reasons: [...new Set(failures)], committed: (await admin.fetchOffsets({ groupId: d.groups.main, topics: [d.mainTopic] }))[0]!.partitions[0]!.offset };
    await limit([d.dlqTopic], 1_000_000);
    let committed = '-1';
    const movedBy = Date.now() + 30_000;
    while (committed !== '21' && Date.now() < movedBy) {
      await sleep(500);
      committed = (await admin.fetchOffsets({ groupId: d.groups.main, topics: [d.mainTopic] }))[0]!.partitions[0]!.offset;
    }
    await admin.disconnect();
    expect(whileHeld).toEqual({ held: 1, reasons: ['too-large'], committed: '-1' });
    expect(failures.length).toBeLessThan(40); // three steps, then about one a second: no hot loop
    expect({ succeeded: succeeded.size, committed }).toEqual({ succeeded: 20, committed: '21' });
  });
});
