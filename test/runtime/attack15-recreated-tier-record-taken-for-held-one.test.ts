import { Registry } from 'prom-client';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import type { RetryEvent } from '../../src/runtime/events';
import type { KafkaPort } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError, valueOf } from './harness';
import { checkedSends, messageBytes, tooLargeError } from './too-large-port';

/**
 * Fixed: the held record is known by its identity (offset, timestamp, key, value digest), not its
 * offset alone (tier-pipeline.ts runDue, record-identity.ts isSameRecord).
 *
 * Found by attack 15: a record dead-lettered without its handler ever running on its retry,
 * with another record's error (the tier pipeline's held record, identified by offset alone,
 * outlives the log it was read on).
 *
 * Scenario: a big record fails at the main topic; its 1m copy runs and fails again, and its
 * next copy is too large for the 10m tier and for the DLQ: it is held (docs/runtime.md, "A
 * copy too large"), its 1m partition paused at offset 0, its publish tried again at the
 * longest backoff. The 1m tier is deleted and created again with no rebalance (a Terraform
 * replacement; kafkajs rejoins only when the partition ids change). A small record then
 * fails once at the main topic (a blip): its 1m copy is the new log's offset 0.
 *
 * Seen: the small record's 1m copy never runs its handler; it goes straight to the DLQ, as
 * the big record's too-large failure. The held record's retry timer seeks the partition back
 * to its head, offset 0, which is now the new log's first record; the tier pipeline's
 * `held` map (src/runtime/tier-pipeline.ts runDue: `entry?.offset === record.message.offset`)
 * takes it for the held record read again, and hands its failure to the record handler as
 * `before`, which publishes it to the DLQ without running the handler
 * (record-handler.ts handle: `let failure = tier?.before`). Both orderings share this path.
 *
 * Code at fault: tier-pipeline.ts runDue()'s identity of a held record by (topic, partition,
 * offset) alone; and waitAt/resumePartition, whose seek to an offset of the old log reads the
 * new one there (no fetch out of range for kafkajs to answer by reading from 0).
 *
 * Class: identity by offset that outlives the log it names (attack 9, 12 and 14's family), in
 * the tier pipeline rather than in park-by-key.
 *
 * Fix I'd make: keep the held record's timestamp (and key, value digest) beside its offset,
 * and take a record read at that offset for it only if they match; else forget the hold (the
 * held record went with its log) and run the record read as any other.
 */
function setup(overrides: Partial<ConsumerDescriptor> = {}) {
  const consumer = billingDescriptor({ inPlace: { attempts: 1, backoffMs: 100, maxBackoffMs: 100, jitter: 0 }, ...overrides });
  const clock = new VirtualClock(1_000_000);
  const broker = new MemoryBroker(clock);
  for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 2);
  // The first tier keeps the big record's copy; the second tier and the DLQ are configured smaller.
  const limits = new Map<string, number>([
    [consumer.tiers[1]!.topic, 1_000],
    [consumer.dlqTopic, 1_000],
  ]);
  const kafka: KafkaPort = checkedSends(broker, (records) => {
    if (records.some((r) => r.messages.some((m) => messageBytes(m) > (limits.get(r.topic) ?? Infinity)))) throw tooLargeError();
  });
  const events: RetryEvent[] = [];
  const ran: string[] = [];
  const retrying = createRetryingConsumer(consumer, {
    kafka,
    clock,
    registry: new Registry(),
    random: () => 0.5,
    onEvent: (e) => events.push(e),
    handler: async (record: ConsumedRecord) => {
      const value = valueOf(record);
      ran.push(`${record.topic}:${value.slice(0, 12)}`);
      if (value.startsWith('big')) throw httpError(503); // down for this record for hours
      if (value === 'small' && record.topic === consumer.mainTopic) throw httpError(503); // a blip: its first retry succeeds
    },
  });
  const produce = (key: string, value: string, partition: number) => broker.append(consumer.mainTopic, { key: Buffer.from(key), value: Buffer.from(value), partition });
  const run = (ms: number) => broker.run({ until: clock.now() + ms, maxSteps: 5_000 }).catch(() => undefined);
  const count = (type: RetryEvent['type']) => events.filter((e) => e.type === type).length;
  const dlqValues = () => [0, 1].flatMap((p) => broker.records(consumer.dlqTopic, p).map((r) => r.value?.toString().slice(0, 12)));
  return { consumer, broker, retrying, produce, run, count, ran, dlqValues };
}

const BIG = `big${'x'.repeat(1_497)}`;

describe.each(['unordered', 'park-by-key'] as const)('%s: a tier topic created again (no rebalance) while a record of it is held', (ordering) => {
  it("runs the new log's record at the held record's offset, instead of sending it to the DLQ as the held one", async () => {
    const s = setup({ ordering });
    const tier1m = s.consumer.tiers[0]!.topic;
    s.produce('a', BIG, 0);
    await s.retrying.start();
    await s.run(5 * 60_000);
    expect(s.count('publish-held')).toBe(1);

    s.broker.recreateTopic(tier1m, { rebalance: false });
    s.produce('b', 'small', 0); // fails once: its 1m copy is the new log's offset 0
    await s.run(10 * 60_000);
    await s.retrying.stop();

    expect(s.broker.records(tier1m, 0).map((r) => r.value?.toString())).toEqual(['small']);
    // Seen: ['main:small'] only, and 'small' in the DLQ as the big record's too-large failure.
    expect(s.ran.filter((r) => r.endsWith(':small'))).toEqual([`${s.consumer.mainTopic}:small`, `${tier1m}:small`]);
    expect(s.dlqValues()).not.toContain('small');
  }, 30_000);
});
