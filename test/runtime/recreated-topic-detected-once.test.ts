import { Registry } from 'prom-client';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError, valueOf } from './harness';

/**
 * A batch whose first offset is below the last commit the broker acknowledged is taken for a
 * new log (the topic deleted and created again), once: the committer then forgets what it knew
 * of the old log. It did not (attack3 of s25): the old log's acknowledged offset stayed the
 * yardstick, every batch of the new log below it revoked the progress again, abandoning the
 * publishes still in flight from the batches before, and the fresh progress committed past them.
 */
type Internals = { logs: Map<string, unknown[][]>; committed: Map<string, Map<string, unknown>> };
function recreate(broker: MemoryBroker, topic: string, groups: string[]): void {
  const b = broker as unknown as Internals;
  b.logs.set(topic, b.logs.get(topic)!.map(() => []));
  for (const g of groups) for (const key of [...(b.committed.get(g)?.keys() ?? [])]) if (key.startsWith(`${topic}\u0000`)) b.committed.get(g)!.delete(key);
  for (const g of groups) broker.rebalance(g);
}

describe('a recreated main topic: a failed record of its first batch still reaches its retry tier', () => {
  // Record 0 of the new log fails and its tier publish is refused for a while; the second batch must not revoke it.
  it('the retry of the new log\'s first record is not abandoned by its second batch', async () => {
    const consumer = billingDescriptor({ inPlace: { attempts: 1, backoffMs: 100, maxBackoffMs: 100, jitter: 0 } });
    const clock = new VirtualClock(1_000_000);
    const broker = new MemoryBroker(clock);
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
    const ran: string[] = [];
    const retrying = createRetryingConsumer(consumer, {
      kafka: broker.port(),
      clock,
      registry: new Registry(),
      random: () => 0.5,
      handler: async (record: ConsumedRecord) => {
        ran.push(`${record.topic === consumer.mainTopic ? 'main' : 'tier'}:${valueOf(record)}`);
        if (record.topic === consumer.mainTopic && valueOf(record).startsWith('fail')) throw httpError(503);
      },
    });
    const produce = (value: string) => broker.append(consumer.mainTopic, { key: Buffer.from(value), value: Buffer.from(value), partition: 0 });

    for (let i = 0; i < 10; i++) produce(`old-${i}`);
    await retrying.start();
    await broker.run({ stopWhen: () => ran.length === 10 });
    await broker.run({ until: clock.now() + 1_000 });
    expect(broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0)).toBe(10);

    recreate(broker, consumer.mainTopic, [consumer.groups.main]);
    broker.batchSize = 2;
    broker.refuseWrites(consumer.tiers[0]!.topic, 2); // the tier refuses the copy for a moment
    produce('fail-new-0');
    for (let i = 1; i < 6; i++) produce(`new-${i}`);
    await broker.run({ until: clock.now() + 5 * 60_000 });
    await retrying.stop();

    expect(ran.filter((r) => r.startsWith('main:new') || r.startsWith('main:fail-new'))).toEqual(['main:fail-new-0', 'main:new-1', 'main:new-2', 'main:new-3', 'main:new-4', 'main:new-5']);
    // Seen: [] — record 0's tier copy was never written (its publish abandoned) and the main commit passed it.
    expect(ran.filter((r) => r.startsWith('tier:'))).toEqual(['tier:fail-new-0']);
    expect(broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0)).toBe(6);
  });
});
