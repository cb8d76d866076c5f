import { ConfigResourceTypes } from 'kafkajs';
import type { Admin } from 'kafkajs';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import { eventually } from '../helpers/eventually';
import { createTopicsOf, kafkaAsAdmin, produceAsAdmin, testDescriptor } from '../helpers/kafka';
import { CLIENTS, eachClient } from './clients';

jest.setTimeout(120_000);

const BIG = `big${'x'.repeat(1_897)}`;

/** The topic's max.message.bytes, as an operator sets it. */
async function limit(admin: Admin, topics: string[], bytes: number): Promise<void> {
  await admin.alterConfigs({ validateOnly: false, resources: topics.map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configEntries: [{ name: 'max.message.bytes', value: String(bytes) }] })) });
}

async function committed(admin: Admin, d: ConsumerDescriptor, partition: number): Promise<string> {
  const [topic] = await admin.fetchOffsets({ groupId: d.groups.retry, topics: [d.tiers[0]!.topic] });
  return topic!.partitions.find((p) => p.partition === partition)?.offset ?? '-1';
}

/**
 * The held-tier regression (docs/runtime.md, "A copy too large") on a real broker: the
 * second tier and the DLQ keep max.message.bytes at 2,000, so a 1,900-byte record that
 * fails in its first tier is held there. The retry consumer runs one partition at a time;
 * the held record used to wait inside that one slot, and no other tier record ran.
 */
eachClient('a held tier record, on a real broker', (port) => {
  let consumer: RetryingConsumer | undefined;
  let admin: Admin | undefined;
  afterEach(async () => {
    await consumer?.stop();
    await admin?.disconnect();
    consumer = admin = undefined;
  });

  it('holds only its own tier partition: another partition\'s retry runs meanwhile, and it goes to the DLQ once the limit is raised', async () => {
    const d = testDescriptor('heldtier', [1, 60]);
    await createTopicsOf(d, 2);
    admin = kafkaAsAdmin().admin();
    await admin.connect();
    await limit(admin, [d.tiers[1]!.topic, d.dlqTopic], 2_000);
    const ran: string[] = [];
    let held = 0;
    consumer = createRetryingConsumer(d, {
      kafka: port(),
      publishBackoff: { initialMs: 100, maxMs: 1_000 },
      onEvent: (e) => void (e.type === 'publish-held' && held++),
      handler: async (record) => {
        const value = record.message.value!.toString();
        ran.push(`${record.topic}:${value.slice(0, 5)}`);
        // The big record fails everywhere; 'small' fails once, on the main topic.
        if (value.startsWith('big') || record.topic === d.mainTopic) throw Object.assign(new Error('503'), { name: 'HTTPError', status: 503 });
      },
    });
    await consumer.start();
    await produceAsAdmin(d.mainTopic, [{ key: 'a', value: BIG, partition: 0 }]);
    await eventually('the big record held in its first tier', () => (held > 0 ? true : undefined), 60_000);

    await produceAsAdmin(d.mainTopic, [{ key: 'b', value: 'small', partition: 1 }]);
    await eventually("the retry of main partition 1's record, beside the held one", () => (ran.includes(`${d.tiers[0]!.topic}:small`) ? true : undefined), 30_000);
    expect(await committed(admin, d, 0)).not.toBe('1'); // the held record is not committed

    await limit(admin, [d.dlqTopic], 1_000_000);
    await eventually('the held record committed in its tier, once in the DLQ', async () => ((await committed(admin!, d, 0)) === '1' ? true : undefined), 30_000);
    const dlq = await admin.fetchTopicOffsets(d.dlqTopic);
    expect({ held, dlq: dlq.reduce((n, p) => n + Number(p.high), 0), tierRuns: ran.filter((r) => r === `${d.tiers[0]!.topic}:bigxx`).length }).toEqual({ held: 1, dlq: 1, tierRuns: 1 });
  });
});

eachClient('a held tier record of a park-by-key consumer, on a real broker', { clients: CLIENTS.filter((c) => c.orderings.includes('park-by-key')) }, (port) => {
  let consumer: RetryingConsumer | undefined;
  let admin: Admin | undefined;
  afterEach(async () => {
    await consumer?.stop();
    await admin?.disconnect();
    consumer = admin = undefined;
  });

  it('keeps its key held while another key of its main partition runs, and releases the key once the limit is raised', async () => {
    const d: ConsumerDescriptor = { ...testDescriptor('heldkey', [1, 60]), ordering: 'park-by-key' };
    await createTopicsOf(d, 2);
    admin = kafkaAsAdmin().admin();
    await admin.connect();
    await limit(admin, [d.tiers[1]!.topic, d.dlqTopic], 2_000);
    const ran: string[] = [];
    let held = 0;
    consumer = createRetryingConsumer(d, {
      kafka: port(),
      publishBackoff: { initialMs: 100, maxMs: 1_000 },
      onEvent: (e) => void (e.type === 'publish-held' && held++),
      handler: async (record) => {
        const value = record.message.value!.toString();
        ran.push(`${record.topic}:${value.slice(0, 5)}`);
        if (value.startsWith('big')) throw Object.assign(new Error('503'), { name: 'HTTPError', status: 503 });
      },
    });
    await consumer.start();
    await produceAsAdmin(d.mainTopic, [{ key: 'a', value: BIG, partition: 0 }]);
    await eventually('the big record held in its first tier', () => (held > 0 ? true : undefined), 60_000);

    await produceAsAdmin(d.mainTopic, [
      { key: 'a', value: 'later', partition: 0 },
      { key: 'b', value: 'fine', partition: 0 },
    ]);
    await eventually('another key of the same main partition, beside the held record', () => (ran.includes(`${d.mainTopic}:fine`) ? true : undefined), 30_000);
    expect(ran).not.toContain(`${d.mainTopic}:later`); // parked behind its key's held record

    await limit(admin, [d.dlqTopic], 1_000_000);
    await eventually("the held key's parked record, once its held record is in the DLQ", () => (ran.includes(`${d.mainTopic}:later`) ? true : undefined), 30_000);
    const dlq = await admin.fetchTopicOffsets(d.dlqTopic);
    expect({ held, dlq: dlq.reduce((n, p) => n + Number(p.high), 0) }).toEqual({ held: 1, dlq: 1 });
  });
});
