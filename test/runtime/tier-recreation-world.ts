import { Registry } from 'prom-client';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import type { RetryEvent } from '../../src/runtime/events';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError, valueOf } from './harness';

/**
 * A consumer whose tier topics are to be deleted and created again: each main record fails once
 * (a blip) and its 1m copy succeeds; `ran` names every run as `topic:value`. `start()` starts a
 * run (again after a stop: a restart).
 */
export function tierRecreationWorld(overrides: Partial<ConsumerDescriptor> = {}, topicIds: 'fetch' | 'none' = 'none') {
  const consumer = billingDescriptor({ inPlace: { attempts: 1, backoffMs: 100, maxBackoffMs: 100, jitter: 0 }, ...overrides });
  const clock = new VirtualClock(1_000_000);
  const broker = new MemoryBroker(clock);
  for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 2);
  const ran: string[] = [];
  const events: RetryEvent[] = [];
  /** Each value fails once at the main topic (a blip): its first retry succeeds. */
  const failedOnce = new Set<string>();
  const start = async () => {
    const retrying = createRetryingConsumer(consumer, {
      kafka: broker.port({ topicIds }),
      clock,
      registry: new Registry(),
      random: () => 0.5,
      onEvent: (e) => events.push(e),
      handler: async (record: ConsumedRecord) => {
        const value = valueOf(record);
        ran.push(`${record.topic}:${value}`);
        if (record.topic === consumer.mainTopic && !failedOnce.has(value)) {
          failedOnce.add(value);
          throw httpError(503);
        }
      },
    });
    await retrying.start();
    return retrying;
  };
  const produce = (key: string, value: string) => broker.append(consumer.mainTopic, { key: Buffer.from(key), value: Buffer.from(value), partition: 0 });
  const run = (ms: number, stopWhen?: () => boolean) => broker.run({ until: clock.now() + ms, maxSteps: 5_000, ...(stopWhen ? { stopWhen } : {}) });
  return { consumer, broker, clock, ran, events, start, produce, run };
}
