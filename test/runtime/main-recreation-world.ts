import { Registry } from 'prom-client';
import type { KafkaPort } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { valueOf } from './harness';

/** The old log's records and the new log's, one more than the old log's end and some. */
export const OLD = ['o0', 'o1', 'o2', 'o3', 'o4'];
export const NEW = ['n0', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6'];

/**
 * A consumer of a one-partition main topic that is to be deleted and created again: every main
 * record succeeds and is noted in `ran`; commits go every second (so one can be left unsent).
 * `consumerOn(port)` makes another run of it (a restart) over the same broker.
 */
export function mainRecreationWorld(topicIds: 'fetch' | 'none', ordering: 'unordered' | 'park-by-key' = 'unordered') {
  const consumer = billingDescriptor({ ordering });
  const clock = new VirtualClock(1_000_000);
  const broker = new MemoryBroker(clock);
  for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
  const ran: string[] = [];
  const consumerOn = (kafka: KafkaPort): RetryingConsumer =>
    createRetryingConsumer(consumer, {
      kafka,
      clock,
      registry: new Registry(),
      random: () => 0.5,
      commit: { intervalMs: 1_000, maxRecords: 1_000 },
      handler: async (record: ConsumedRecord) => void ran.push(valueOf(record)),
    });
  const retrying = consumerOn(broker.port({ topicIds }));
  const produce = (values: string[]) => {
    for (const value of values) broker.append(consumer.mainTopic, { key: Buffer.from(value), value: Buffer.from(value), partition: 0 });
  };
  const run = (ms: number, stopWhen?: () => boolean) => broker.run({ until: clock.now() + ms, maxSteps: 5_000, ...(stopWhen ? { stopWhen } : {}) });
  return { consumer, broker, ran, retrying, consumerOn, produce, run };
}
