import { randomBytes } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { ADMIN_USER, passwordOf } from '../scripts/kafka/broker';
import type { ConsumerDescriptor } from '../src/runtime/descriptor';
import { createTopicsWithLeaders } from '../scripts/kafka/serving';

export function benchKafka(): Kafka {
  return new Kafka({
    clientId: 'krt-bench',
    brokers: process.env.KAFKA_BOOTSTRAP_SERVERS!.split(','),
    sasl: { mechanism: 'plain', username: ADMIN_USER, password: passwordOf(ADMIN_USER) },
    logLevel: logLevel.NOTHING,
  });
}

/** A consumer on fresh topics for one measurement. */
export async function freshTopics(prefix: string, tierSeconds: number[], partitions: number): Promise<ConsumerDescriptor> {
  const id = `${prefix}-${randomBytes(4).toString('hex')}`;
  const d: ConsumerDescriptor = {
    name: id,
    mainTopic: `${id}.main`,
    groups: { main: id, retry: `${id}.retry`, replay: `${id}.dlq-replay`, monitor: `${id}.dlq-monitor` },
    tiers: tierSeconds.map((s, i) => ({ index: i + 1, topic: `${id}.main.retry.${s}s`, delayMs: s * 1000, label: `${s}s` })),
    dlqTopic: `${id}.main.dlq`,
    inPlace: { attempts: 1, backoffMs: 10, maxBackoffMs: 10, jitter: 0 },
    errorPolicy: { permanent: [], ambiguous: [], ambiguousTiers: 0 },
    ordering: 'unordered',
    headerStyle: 'x',
  };
  const admin = benchKafka().admin();
  await admin.connect();
  await createTopicsWithLeaders(admin, [d.mainTopic, ...d.tiers.map((t) => t.topic), d.dlqTopic].map((topic) => ({ topic, numPartitions: partitions })));
  await admin.disconnect();
  return d;
}

/**
 * Produces records in batches; `headers` per record index. Each value is the record's
 * index, padded with spaces to `valueBytes` (Number() reads it back).
 */
export async function produce(topic: string, count: number, headers: (i: number) => Record<string, string> = () => ({}), valueBytes = 0): Promise<void> {
  const producer = benchKafka().producer();
  await producer.connect();
  for (let start = 0; start < count; start += 1000) {
    const messages = Array.from({ length: Math.min(1000, count - start) }, (_, k) => ({ key: `k${(start + k) % 997}`, value: String(start + k).padEnd(valueBytes), headers: headers(start + k) }));
    await producer.send({ topic, acks: -1, messages });
  }
  await producer.disconnect();
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
