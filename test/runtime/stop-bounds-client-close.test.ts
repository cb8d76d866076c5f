import { Registry } from 'prom-client';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { KafkaPort } from '../../src/runtime/port';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { valueOf } from './harness';

/**
 * Attack 46: with the broker away, the Confluent consumer's close (rd_kafka_consumer_close)
 * waited until the broker was back, and stop() never returned (a SIGTERM'd service hung until
 * its SIGKILL). stop() waits for each client's close at most 10 s, then says so.
 */
function closesNever(broker: MemoryBroker, which: 'consumers' | 'producer' | 'producer refuses'): KafkaPort {
  const port = broker.port();
  const never = () => new Promise<void>(() => undefined);
  return {
    producer: () => {
      const p = port.producer();
      if (which === 'producer') p.disconnect = never;
      if (which === 'producer refuses') p.disconnect = () => Promise.reject(new Error('the producer could not flush'));
      return p;
    },
    consumer: (groupId, options) => {
      const c = port.consumer(groupId, options);
      if (which === 'consumers') c.disconnect = never;
      return c;
    },
  };
}

/** Runs the virtual clock until `work` settles (at most `ms` of simulated time); answers when, and how. */
async function settledAt(clock: VirtualClock, ms: number, work: Promise<unknown>): Promise<{ at: number; outcome: string } | undefined> {
  let settled: { at: number; outcome: string } | undefined;
  work.then(
    () => (settled = { at: clock.now(), outcome: 'returned' }),
    (error: unknown) => (settled = { at: clock.now(), outcome: (error as Error).message }),
  );
  const end = clock.now() + ms;
  while (settled === undefined && clock.now() < end) {
    for (let i = 0; i < 20 && settled === undefined; i++) await new Promise((resolve) => setImmediate(resolve));
    if (settled !== undefined || !clock.hasTimers()) break;
    clock.advanceToNextTimer();
  }
  for (let i = 0; i < 20 && settled === undefined; i++) await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe('stop() while a client never finishes closing (the broker away)', () => {
  it('still reports a producer close refused in time, as before', async () => {
    const consumer = billingDescriptor();
    const clock = new VirtualClock(1_000_000);
    const broker = new MemoryBroker(clock);
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
    const retrying = createRetryingConsumer(consumer, { kafka: closesNever(broker, 'producer refuses'), clock, registry: new Registry(), random: () => 0.5, drainTimeoutMs: 2_000, handler: async () => {} });
    await retrying.start();
    expect((await settledAt(clock, 120_000, retrying.stop()))?.outcome).toBe('the producer could not flush');
  });

  it.each(['consumers', 'producer'] as const)('returns after the drain and at most 10 s of waiting for the %s, saying the clients go on closing in the background', async (which) => {
    const consumer = billingDescriptor();
    const clock = new VirtualClock(1_000_000);
    const broker = new MemoryBroker(clock);
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
    const ran: string[] = [];
    const retrying = createRetryingConsumer(consumer, {
      kafka: closesNever(broker, which),
      clock,
      registry: new Registry(),
      random: () => 0.5,
      drainTimeoutMs: 2_000,
      handler: async (record: ConsumedRecord) => void ran.push(valueOf(record)),
    });
    broker.append(consumer.mainTopic, { key: Buffer.from('k'), value: Buffer.from('v'), partition: 0 });
    await retrying.start();
    await broker.run({ stopWhen: () => ran.length >= 1, maxSteps: 2_000 });
    const stopAt = clock.now();
    const stopped = await settledAt(clock, 120_000, retrying.stop());
    expect(stopped?.outcome).toBe(`stop(): consumer ${consumer.name}'s clients did not close within 10 s (is the broker away?); they go on closing in the background. What was not committed runs again at the next start, and the group gives this member's partitions to others when its session ends.`);
    expect(stopped!.at - stopAt).toBeLessThanOrEqual(2_000 + 10_000);
  });
});
