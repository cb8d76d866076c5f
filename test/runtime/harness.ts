import { Registry } from 'prom-client';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import type { RetryEvent } from '../../src/runtime/events';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';

/** A retrying consumer on the in-memory broker with a virtual clock, and what it did. */
export function harness(consumer: ConsumerDescriptor, handler: (record: ConsumedRecord, clock: VirtualClock) => Promise<void>) {
  const clock = new VirtualClock(1_000_000);
  const broker = new MemoryBroker(clock);
  for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 2);
  const events: RetryEvent[] = [];
  const registry = new Registry();
  const retrying = createRetryingConsumer(consumer, {
    kafka: broker.port(),
    handler: (record) => handler(record, clock),
    clock,
    random: () => 0.5,
    registry,
    onEvent: (e) => events.push(e),
  });
  const produce = (key: string, value: string, partition = 0, headers: Record<string, string> = {}) =>
    broker.append(consumer.mainTopic, { key: Buffer.from(key), value: Buffer.from(value), partition, headers });
  return { clock, broker, events, registry, retrying, produce };
}

export const valueOf = (record: ConsumedRecord) => record.message.value?.toString('utf8') ?? '';

export function httpError(status: number, message = `downstream ${status}`): Error {
  return Object.assign(new Error(message), { name: 'HTTPError', status });
}
