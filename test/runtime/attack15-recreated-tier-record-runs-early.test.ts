import { Registry } from 'prom-client';
import { HEADERS } from '../../src/naming/headers';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import type { RetryEvent } from '../../src/runtime/events';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError, valueOf } from './harness';

/**
 * Fixed: FirstSeen knows its head by the record's identity, not its offset alone (due-time.ts).
 *
 * Found by attack 15: a tier record run EARLY (before its due time; R13 promises never), when
 * its tier is recreated with no rebalance while its partition waits at a record of the old log.
 *
 * Scenario: c fails once at T0; its 1m copy (offset 0) is due at T0+60s, and the 1m partition
 * waits at it (first read at T0). At T0+30s the 1m tier is deleted and created again with no
 * rebalance, and d fails once: its 1m copy is the new log's offset 0, due at T0+90s.
 *
 * Seen: d's 1m copy runs at T0+60s, 30 s before its due time (its x-due-at says T0+90s). The
 * timer resumes the partition at the head's offset, 0, and reads d's copy there; the tier
 * pipeline's FirstSeen (src/runtime/due-time.ts) still holds the old head's first read at that
 * offset, T0, and dueTimeOf() takes the earliest of the header, the timestamp plus the delay and
 * the first read plus the delay: T0+60s. Both orderings share the path.
 *
 * Code at fault: due-time.ts FirstSeen.at(), which knows a head by its offset alone, and
 * tier-pipeline.ts onRecord(), which asks it about a record of another log at that offset.
 *
 * Class: identity by offset that outlives the log it names (attack 9, 12 and 14's family),
 * here costing the never-early promise.
 *
 * Fix I'd make: keep the head's timestamp (or key and a value digest) beside its offset in
 * FirstSeen, and take a record read there for the head only when they match; else it is first
 * read now.
 */
function setup(overrides: Partial<ConsumerDescriptor> = {}) {
  const consumer = billingDescriptor({ inPlace: { attempts: 1, backoffMs: 100, maxBackoffMs: 100, jitter: 0 }, ...overrides });
  const clock = new VirtualClock(1_000_000);
  const broker = new MemoryBroker(clock);
  for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 2);
  const events: RetryEvent[] = [];
  /** Each tier run: its value, when it ran, and when its copy said it was due. */
  const tierRuns: { value: string; at: number; dueAt: number }[] = [];
  const failedOnce = new Set<string>();
  const retrying = createRetryingConsumer(consumer, {
    kafka: broker.port(),
    clock,
    registry: new Registry(),
    random: () => 0.5,
    onEvent: (e) => events.push(e),
    handler: async (record: ConsumedRecord) => {
      const value = valueOf(record);
      if (record.topic !== consumer.mainTopic) tierRuns.push({ value, at: clock.now(), dueAt: Number(record.message.headers?.[HEADERS.dueAt]?.toString()) });
      if (record.topic === consumer.mainTopic && !failedOnce.has(value)) {
        failedOnce.add(value);
        throw httpError(503); // a blip: its first retry succeeds
      }
    },
  });
  const produce = (key: string, value: string) => broker.append(consumer.mainTopic, { key: Buffer.from(key), value: Buffer.from(value), partition: 0 });
  return { consumer, clock, broker, events, tierRuns, retrying, produce };
}

describe.each(['unordered', 'park-by-key'] as const)('%s: a tier topic created again (no rebalance) while its partition waits at a record of the old log', (ordering) => {
  it('runs the record the new log has at that offset no earlier than its own due time', async () => {
    const s = setup({ ordering });
    const tier1m = s.consumer.tiers[0]!.topic;
    const startedAt = s.clock.now();
    await s.retrying.start();
    s.produce('c', 'c');
    await s.broker.run({ stopWhen: () => s.events.some((e) => e.type === 'waiting' && e.topic === tier1m) });
    s.clock.setTimer(30_000, () => {
      s.broker.recreateTopic(tier1m, { rebalance: false });
      s.broker.readFromEarliest(tier1m, 0);
      s.produce('d', 'd'); // fails once: its 1m copy is the new log's offset 0, due a minute later
    });
    await s.broker.run({ until: s.clock.now() + 10 * 60_000 });
    await s.retrying.stop();

    const d = s.tierRuns.find((r) => r.value === 'd');
    expect(d?.dueAt).toBe(startedAt + 90_000);
    // Seen: d ran at T0+60s, the old head's due time.
    expect(d!.at).toBeGreaterThanOrEqual(d!.dueAt);
  });
});
