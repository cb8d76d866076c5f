import { Registry } from 'prom-client';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import type { RetryEvent } from '../../src/runtime/events';
import type { KafkaPort } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { checkedSends, messageBytes, tooLargeError } from './too-large-port';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError, valueOf } from './harness';

/**
 * Found by an attack (s25), kept as the regression: a tier record whose next copy is too
 * large for its next tier and for the DLQ is held (docs/runtime.md, "A copy too large"). It
 * used to be held inside the retry consumer's eachMessage, and that consumer runs one
 * partition at a time: one held record stopped every tier partition of the member, for as
 * long as the operator had not raised the limit. Now the held record's partition waits at it
 * (paused, as a record not yet due waits) and its publish is tried again at the longest
 * backoff; every other tier partition goes on.
 */
function setup(overrides: Partial<ConsumerDescriptor> = {}, parkedHoldExpiryMs?: number) {
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
    parkedHoldExpiryMs,
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
  const tooLargeRefusals = () => events.filter((e) => e.type === 'publish-failed' && e.reason === 'too-large').length;
  const bigRuns = (topic: string) => ran.filter((r) => r === `${topic}:bigxxxxxxxxx`).length;
  return { consumer, clock, broker, limits, events, ran, retrying, produce, run, count, tooLargeRefusals, bigRuns };
}

const BIG = `big${'x'.repeat(1_497)}`;

describe('a tier record whose next copy is too large for its next tier and the DLQ', () => {
  it('holds its own tier partition only: a retry of another main partition still runs', async () => {
    const s = setup();
    s.produce('a', BIG, 0);
    await s.retrying.start();
    await s.run(10 * 60_000);
    expect(s.count('publish-held')).toBe(1);

    // An unrelated record of main partition 1 fails once; its retry is due a minute later.
    s.produce('b', 'small', 1);
    await s.run(30 * 60_000);
    await s.retrying.stop();

    expect(s.ran.filter((r) => r.endsWith(':small'))).toEqual([`${s.consumer.mainTopic}:small`, `${s.consumer.tiers[0]!.topic}:small`]);
  }, 30_000);

  it('is tried again at the longest backoff and goes to the DLQ once its limit is raised, without running the handler again', async () => {
    const s = setup();
    const tier = s.consumer.tiers[0]!.topic;
    s.produce('a', BIG, 0);
    await s.retrying.start();
    await s.run(2 * 60_000);
    const heldAt = s.clock.now();
    const refusalsWhenHeld = s.tooLargeRefusals();
    await s.run(10 * 60_000);
    const whileHeld = { held: s.count('publish-held'), committed: s.broker.committedOffset(s.consumer.groups.retry, tier, 0) ?? 0, dlq: s.broker.records(s.consumer.dlqTopic, 0).length };
    // About one refusal per 30 s (the default longest publish backoff): no hot loop.
    expect(s.tooLargeRefusals() - refusalsWhenHeld).toBeLessThanOrEqual(1 + (s.clock.now() - heldAt) / 30_000);

    s.limits.set(s.consumer.dlqTopic, 1_000_000);
    await s.run(60_000);
    await s.retrying.stop();
    expect(whileHeld).toEqual({ held: 1, committed: 0, dlq: 0 });
    expect({ held: s.count('publish-held'), dlq: s.broker.records(s.consumer.dlqTopic).length + s.broker.records(s.consumer.dlqTopic, 1).length, committed: s.broker.committedOffset(s.consumer.groups.retry, tier, 0), tierRuns: s.bigRuns(tier) }).toEqual({
      held: 1,
      dlq: 1,
      committed: 1,
      tierRuns: 1,
    });
  }, 30_000);

  it('leaves its record uncommitted when the consumer stops while it is held', async () => {
    const s = setup();
    const tier = s.consumer.tiers[0]!.topic;
    s.produce('a', BIG, 0);
    await s.retrying.start();
    await s.run(5 * 60_000);
    const stoppedAt = s.clock.now();
    await s.retrying.stop();
    expect({ held: s.count('publish-held'), committed: s.broker.committedOffset(s.consumer.groups.retry, tier, 0) ?? 0, waitedMs: s.clock.now() - stoppedAt }).toEqual({ held: 1, committed: 0, waitedMs: 0 });
  }, 30_000);

  it('runs again from its commit after a rebalance, and is held again, until the limit is raised', async () => {
    const s = setup();
    const tier = s.consumer.tiers[0]!.topic;
    s.produce('a', BIG, 0);
    await s.retrying.start();
    await s.run(5 * 60_000);
    s.broker.rebalance(s.consumer.groups.retry);
    await s.run(5 * 60_000);
    const afterRebalance = { held: s.count('publish-held'), tierRuns: s.bigRuns(tier) };
    s.limits.set(s.consumer.dlqTopic, 1_000_000);
    await s.run(60_000);
    await s.retrying.stop();
    // The rebalance forgot the hold: the record ran again (at least once), as any record read again from its commit does.
    expect(afterRebalance).toEqual({ held: 2, tierRuns: 2 });
    expect({ committed: s.broker.committedOffset(s.consumer.groups.retry, tier, 0), dlq: s.broker.records(s.consumer.dlqTopic).length + s.broker.records(s.consumer.dlqTopic, 1).length, paused: s.broker.pausedPartitions(s.consumer.groups.retry) }).toEqual({
      committed: 1,
      dlq: 1,
      paused: [],
    });
  }, 30_000);

  it('with park-by-key, keeps its key held (its later records parked) while other keys and partitions go on, and releases it once the limit is raised', async () => {
    const s = setup({ ordering: 'park-by-key' });
    s.produce('a', BIG, 0);
    await s.retrying.start();
    await s.run(5 * 60_000);
    s.produce('a', 'later', 0);
    s.produce('b', 'fine', 0);
    s.produce('c', 'small', 1);
    await s.run(10 * 60_000);
    const whileHeld = { held: s.count('publish-held'), ran: s.ran.filter((r) => !r.includes(':big')).sort() };
    s.limits.set(s.consumer.dlqTopic, 1_000_000);
    await s.run(60_000);
    await s.retrying.stop();
    const main = s.consumer.mainTopic;
    expect(whileHeld).toEqual({ held: 1, ran: [`${main}:fine`, `${main}:small`, `${s.consumer.tiers[0]!.topic}:small`].sort() });
    expect({ later: s.ran.filter((r) => r === `${main}:later`).length, dlq: s.broker.records(s.consumer.dlqTopic).length }).toEqual({ later: 1, dlq: 1 });
  }, 30_000);

  it('with park-by-key, still goes to the DLQ once the limit is raised after its key\'s hold expired meanwhile (no stale copy to drop)', async () => {
    const s = setup({ ordering: 'park-by-key' }, 3 * 60_000);
    s.produce('a', BIG, 0);
    await s.retrying.start();
    await s.run(5 * 60_000);
    s.produce('a', 'later', 0);
    await s.run(5 * 60_000);
    s.limits.set(s.consumer.dlqTopic, 1_000_000);
    await s.run(60_000);
    await s.retrying.stop();
    expect({ held: s.count('publish-held'), expired: s.count('hold-expired'), stale: s.count('stale-tier-record'), dlq: s.broker.records(s.consumer.dlqTopic).length }).toEqual({ held: 1, expired: 1, stale: 0, dlq: 1 });
  }, 30_000);
});
