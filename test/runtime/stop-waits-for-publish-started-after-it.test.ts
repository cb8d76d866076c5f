import { Registry } from 'prom-client';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError, valueOf } from './harness';
import { checkedSends } from './too-large-port';

/**
 * Found by attack (s26, attack4; fixed: stop() waits until no work is in flight, still bounded by the drain deadline), target 4: stop() and the work in hand).
 * src/runtime/retrying-consumer.ts:389 `await Promise.allSettled(inFlight)` takes the set of
 * tracked work as it is when stop() begins; the flush (retrying-consumer.ts:390) follows as soon
 * as those settle. A record whose handler is running when stop() is called and then fails starts
 * its tier publish (main-pipeline.ts:169-170, `track(publishInBackground…)`) after that snapshot:
 * stop() does not wait for it before the last flush. Its copy is acknowledged a moment later
 * (50 ms here, far within drainTimeoutMs), after the flush and close(): the record is in its tier
 * and the main commit stays before it, so the next run takes it again and publishes a second copy
 * (its retry runs twice). The same holds for a record of a batch still in hand.
 * Class: "wait for the work in hand" reads a set once while the work in hand adds to it.
 * Fix I would make: wait until `inFlight` stays empty (loop `while (inFlight.size) await
 * Promise.allSettled(inFlight)`, each wait still bounded by drainOver) before the last flush.
 */
describe('stop() while the last record\'s handler is running, which then fails', () => {
  it('waits for that record\'s tier publish before the last commit, so the next run does not take it again', async () => {
    const consumer = billingDescriptor();
    const clock = new VirtualClock(1_000_000);
    const broker = new MemoryBroker(clock);
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
    // Every produce request is acknowledged 50 ms after it is sent.
    const kafka = checkedSends(broker, () => clock.sleep(50));
    let failLast!: () => void;
    let entered = false;
    const retrying = createRetryingConsumer(consumer, {
      kafka,
      clock,
      registry: new Registry(),
      random: () => 0.5,
      handler: async (record: ConsumedRecord) => {
        if (valueOf(record) !== 'last') return;
        entered = true;
        await new Promise<void>((resolve) => (failLast = resolve));
        throw httpError(503);
      },
    });
    broker.append(consumer.mainTopic, { key: Buffer.from('k'), value: Buffer.from('first'), partition: 0 });
    broker.append(consumer.mainTopic, { key: Buffer.from('k'), value: Buffer.from('last'), partition: 0 });
    await retrying.start();
    await broker.run({ stopWhen: () => entered });

    let stopped = false;
    const stopping = retrying.stop().finally(() => (stopped = true));
    failLast();
    for (let i = 0; i < 1_000 && !stopped; i++) {
      await new Promise((r) => setImmediate(r));
      if (!stopped && clock.hasTimers()) clock.advanceToNextTimer();
    }
    await stopping;

    expect(broker.records(consumer.tiers[0]!.topic).map((r) => r.value?.toString())).toEqual(['last']);
    // Seen: 1 — the copy of 'last' is in its tier, but the commit stays before it: the next run publishes it again.
    expect(broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0)).toBe(2);
  });
});
