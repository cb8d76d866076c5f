import { randomBytes } from 'node:crypto';
import type { ConsumerModel, TopologyModel } from '../src/model/types';
import { HEADERS } from '../src/naming/headers';
import { benchTopology, createConsumerTopics } from './bench-topology';
import { benchKafka } from './kafka';

/** The topology of the console and inspect scenario: one consumer, 3 partitions, named by `id`. */
export function consoleBenchTopology(id: string): TopologyModel {
  return benchTopology(`console-${id}`, id);
}

/** A fresh id, with the consumer's topics created. */
export async function freshConsoleBench(): Promise<{ id: string; consumer: ConsumerModel }> {
  const id = randomBytes(3).toString('hex');
  const consumer = consoleBenchTopology(id).consumers[0]!;
  await createConsumerTopics(consumer);
  return { id, consumer };
}

const CLASSES = ['TimeoutError', 'SchemaError', 'TypeError', 'ConflictError'];

/** A ~512-byte order as JSON: what a DLQ of an order service holds. */
function orderValue(i: number): string {
  const base = { id: `order-${i}`, customer: `customer-${i % 9973}`, currency: 'EUR', amount: (i % 100_000) / 100, createdAt: new Date(1_764_000_000_000 + i * 1000).toISOString(), lines: [] as unknown[] };
  for (let line = 0; JSON.stringify(base).length < 470; line++) base.lines.push({ sku: `SKU-${(i + line) % 10_007}`, qty: 1 + ((i + line) % 5) });
  return JSON.stringify(base).padEnd(512, ' ');
}

/** `count` DLQ records as the runtime writes them: ~512-byte values, every x-* header, four interleaved error classes. */
export async function fillRealisticDlq(consumer: ConsumerModel, count: number): Promise<void> {
  const producer = benchKafka().producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const failedAt = String(Date.now() - 3_600_000);
  for (let start = 0; start < count; start += 2000) {
    const messages = Array.from({ length: Math.min(2000, count - start) }, (_, k) => {
      const i = start + k;
      const errorClass = CLASSES[Math.floor(i / 3) % 4]!;
      return {
        partition: i % 3,
        key: `order-${i}`,
        value: orderValue(i),
        headers: {
          [HEADERS.attempt]: '4',
          [HEADERS.originalTopic]: consumer.mainTopic.name,
          [HEADERS.originalPartition]: String(i % 3),
          [HEADERS.originalOffset]: String(i),
          [HEADERS.originalTimestamp]: failedAt,
          [HEADERS.firstFailedAt]: failedAt,
          [HEADERS.errorClass]: errorClass,
          [HEADERS.errorMessage]: `${errorClass}: order-${i} could not be processed after 4 attempts`,
        },
      };
    });
    await producer.send({ topic: consumer.dlq.name, acks: -1, messages });
  }
  await producer.disconnect();
}
