import { ConfigResourceTypes } from 'kafkajs';
import type { Admin } from 'kafkajs';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import { eventually } from '../helpers/eventually';
import { createTopicsOf, kafkaAsAdmin, produceAsAdmin, testDescriptor } from '../helpers/kafka';
import { eachClient } from './clients';

jest.setTimeout(120_000);

/**
 * A main record whose copy is too large even for the DLQ is held: its partition takes no
 * later record until the operator raises the limit. It must wait paused, not inside the
 * client's batch call: with two partitions in hand at once (partitionsConsumedConcurrently
 * 2), two held partitions kept both slots, and records of the other six partitions did not
 * run (kafkajs 2 of 6, the Confluent client 1 of 6, @platformatic/kafka all 6).
 */
eachClient('a held main record on a real broker', (port) => {
  let consumer: RetryingConsumer | undefined;
  let admin: Admin | undefined;
  afterEach(async () => {
    await consumer?.stop();
    await admin?.disconnect();
    consumer = admin = undefined;
  });
  it('holds only its own partition: with two held, the other partitions\' records run, and the held ones go on once the limit is raised', async () => {
    const d = testDescriptor('heldmain', [1]);
    await createTopicsOf(d, 8);
    admin = kafkaAsAdmin().admin();
    await admin.connect();
    await admin.alterConfigs({ validateOnly: false, resources: [d.tiers[0]!.topic, d.dlqTopic].map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configEntries: [{ name: 'max.message.bytes', value: '2000' }] })) });
    const ran = new Set<string>();
    let held = 0;
    consumer = createRetryingConsumer(d, {
      kafka: port(),
      partitionsConsumedConcurrently: 2,
      publishBackoff: { initialMs: 100, maxMs: 1_000 },
      onEvent: (e) => void (e.type === 'publish-held' && held++),
      handler: async (record) => {
        const value = record.message.value!.toString();
        if (value.startsWith('big')) throw Object.assign(new Error('503'), { name: 'HTTPError', status: 503 });
        ran.add(value);
      },
    });
    await consumer.start();
    await produceAsAdmin(d.mainTopic, [0, 1].map((p) => ({ key: `a${p}`, value: `big${'x'.repeat(1_897)}`, partition: p })));
    await eventually('held twice', () => (held >= 2 ? true : undefined), 60_000);
    await produceAsAdmin(d.mainTopic, [0, 1, 2, 3, 4, 5, 6, 7].map((p) => ({ key: `k${p}`, value: `v${p}`, partition: p })));
    await eventually('the records of the six other partitions', () => (['v2', 'v3', 'v4', 'v5', 'v6', 'v7'].every((v) => ran.has(v)) ? true : undefined), 30_000);
    expect(ran.has('v0') || ran.has('v1')).toBe(false);
    // The operator raises the limit: the held copies reach the DLQ and their partitions read on.
    await admin.alterConfigs({ validateOnly: false, resources: [d.tiers[0]!.topic, d.dlqTopic].map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configEntries: [{ name: 'max.message.bytes', value: '1048588' }] })) });
    await eventually('the held partitions read on', () => (ran.has('v0') && ran.has('v1') ? true : undefined), 60_000);
  });
});
