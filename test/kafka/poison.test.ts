import { HEADERS } from '../../src/naming/headers';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import { decodeRetryHeaders } from '../../src/runtime/headers';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { PublishFailureReason } from '../../src/runtime/publish-failure';
import { eventually } from '../helpers/eventually';
import { kafkaAsAdmin, testDescriptor } from '../helpers/kafka';
import { eachClient } from './clients';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';

jest.setTimeout(120_000);

/**
 * A 1s ladder and x+spring headers; the main topic has 3 partitions but its tier and DLQ
 * only 2, as when an operator grew an unmanaged main topic and not its tiers.
 */
async function grownMainTopic(): Promise<ConsumerDescriptor> {
  const d: ConsumerDescriptor = { ...testDescriptor('poison', [1]), headerStyle: 'x+spring' };
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  try {
    await createTopicsWithLeaders(admin, [
        { topic: d.mainTopic, numPartitions: 3, replicationFactor: 1 },
        ...[d.tiers[0]!.topic, d.dlqTopic].map((topic) => ({ topic, numPartitions: 2, replicationFactor: 1 })),
      ]);
  } finally {
    await admin.disconnect();
  }
  return d;
}

async function readAll(topic: string, count: number): Promise<{ value: string; headers: Record<string, Buffer | string | undefined> }[]> {
  const out: { value: string; headers: Record<string, Buffer | string | undefined> }[] = [];
  const consumer = kafkaAsAdmin().consumer({ groupId: `read-${topic}-${Date.now()}` });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void out.push({ value: message.value!.toString(), headers: message.headers as Record<string, Buffer> }) });
  try {
    await eventually(`${count} records in ${topic}`, () => (out.length >= count ? true : undefined));
  } finally {
    await consumer.disconnect();
  }
  return out;
}

eachClient('poison records on a real broker', (port) => {
  let consumer: RetryingConsumer | undefined;
  afterEach(async () => {
    await consumer?.stop();
    consumer = undefined;
  });

  it('sends a null-prototype throw, an x-original-offset beyond 2^63-1 and a partition the tiers lack to the DLQ while the other partitions keep flowing', async () => {
    const d = await grownMainTopic();
    const done: string[] = [];
    const failures: PublishFailureReason[] = [];
    consumer = createRetryingConsumer(d, {
      kafka: port(),
      publishBackoff: { initialMs: 100, maxMs: 500 },
      handler: async (record) => {
        const value = record.message.value!.toString();
        if (value.startsWith('poison')) throw Object.create(null);
        done.push(value);
      },
      onEvent: (e) => void (e.type === 'publish-failed' && failures.push(e.reason)),
    });
    await consumer.start();

    const producer = kafkaAsAdmin().producer();
    await producer.connect();
    await producer.send({
      topic: d.tiers[0]!.topic,
      acks: -1,
      messages: [{ key: 'k', value: 'poison-huge-offset', partition: 0, headers: { [HEADERS.originalOffset]: '9999999999999999999', [HEADERS.originalTopic]: d.mainTopic } }],
    });
    const ok = Array.from({ length: 9 }, (_, i) => ({ key: `k${i}`, value: `ok-${i}`, partition: i % 3 }));
    await producer.send({
      topic: d.mainTopic,
      acks: -1,
      messages: [{ key: 'p0', value: 'poison-main', partition: 0 }, { key: 'p2', value: 'poison-partition-2', partition: 2 }, ...ok],
    });
    await producer.disconnect();

    await eventually('every good record handled', () => (ok.every((m) => done.includes(m.value)) ? true : undefined));
    const dead = await readAll(d.dlqTopic, 3);
    expect(dead.map((r) => r.value).sort()).toEqual(['poison-huge-offset', 'poison-main', 'poison-partition-2']);
    const huge = dead.find((r) => r.value === 'poison-huge-offset')!;
    expect(decodeRetryHeaders(huge.headers).errorClass).toBe('object');
    expect(failures).toContain('unknown-partition');
    expect(await consumer.metrics.registry.metrics()).toMatch(/kafka_retry_publish_failures_total\{[^}]*destination="1s",reason="unknown-partition"\} [1-9]/);
  });
});
