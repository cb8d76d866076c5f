import { Registry } from 'prom-client';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError, valueOf } from './harness';

/**
 * A stopped consumer leaves no timer behind: a park-by-key hold's expiry is a week away, and
 * one asked for by work that ended after stop() cancelled the others kept jest's process alive
 * after the whole suite (seen in CI). Checked on the virtual clock, whose timers are all visible.
 */
describe.each(['park-by-key', 'unordered'] as const)('%s: a consumer stopped while keys are held and records wait in the tiers', (ordering) => {
  it('leaves no timer on the clock', async () => {
    const consumer = billingDescriptor({ ordering });
    const clock = new VirtualClock(1_000_000);
    const broker = new MemoryBroker(clock);
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 2);
    const retrying = createRetryingConsumer(consumer, {
      kafka: broker.port(),
      clock,
      registry: new Registry(),
      random: () => 0.5,
      handler: async (record: ConsumedRecord) => {
        if (valueOf(record).startsWith('fail')) throw httpError(503);
      },
    });
    await retrying.start();
    for (let i = 0; i < 6; i++) broker.append(consumer.mainTopic, { key: Buffer.from(`k${i % 2}`), value: Buffer.from(i < 2 ? `fail${i}` : `ok${i}`), partition: i % 2 });
    await broker.run({ until: clock.now() + 5_000, maxSteps: 5_000 }).catch(() => undefined);
    const stopped = retrying.stop();
    await broker.run({ until: clock.now() + 60_000, maxSteps: 5_000 }).catch(() => undefined);
    await stopped;
    expect(clock.hasTimers()).toBe(false);
  }, 30_000);
});

describe('park-by-key: a record in hand when stop() begins fails after it and holds its key', () => {
  it('leaves no timer on the clock (its hold\'s expiry is not set once stop() began)', async () => {
    const consumer = billingDescriptor({ ordering: 'park-by-key' });
    const clock = new VirtualClock(1_000_000);
    const broker = new MemoryBroker(clock);
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let inHand = false;
    const retrying = createRetryingConsumer(consumer, {
      kafka: broker.port(),
      clock,
      registry: new Registry(),
      random: () => 0.5,
      handler: async (record: ConsumedRecord) => {
        if (record.topic !== consumer.mainTopic) return;
        inHand = true;
        await gate;
        throw httpError(503);
      },
    });
    await retrying.start();
    broker.append(consumer.mainTopic, { key: Buffer.from('k'), value: Buffer.from('late'), partition: 0 });
    await broker.run({ until: clock.now() + 5_000, maxSteps: 5_000, stopWhen: () => inHand }).catch(() => undefined);
    expect(inHand).toBe(true);
    const stopped = retrying.stop();
    release();
    await broker.run({ until: clock.now() + 60_000, maxSteps: 5_000 }).catch(() => undefined);
    await stopped;
    expect(clock.hasTimers()).toBe(false);
  }, 30_000);
});
