import { HEADERS } from '../../src/naming/headers';
import { createKeyParking } from '../../src/runtime/key-parking';
import type { RetryEvent } from '../../src/runtime/events';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError, valueOf } from './harness';

/**
 * A record replayed from the DLQ through the first tier (krt dlq replay's default route),
 * whose key was free, keeps its key's order when it fails again (review of #28, DLQ
 * replay, finding 9; from branch review-28-dlq, adapted to the check-before-handling API
 * and to a partition read past the replayed record, as it is when its record reached the DLQ).
 */
describe('park-by-key and a record replayed from the DLQ', () => {
  function setup() {
    const broker = new MemoryBroker(new VirtualClock(0));
    broker.createTopic('orders', 1);
    broker.commit('g', [{ topic: 'orders', partition: 0, offset: '150', metadata: 'krt-parked/1 +0' }]);
    const handled: string[] = [];
    const events: RetryEvent[] = [];
    const consumer = broker.port().consumer('g');
    const parking = createKeyParking({
      mainTopic: 'orders',
      tierTopics: [],
      consumer: () => consumer,
      handle: async (r) => (handled.push(`${r.message.key}@${r.message.offset}`), 'success'),
      emit: (e) => events.push(e),
      budgetBytes: 4000,
      holdExpiryMs: 3_600_000,
      now: () => 0,
      setTimer: () => () => {},
      commitOffsetFor: (r) => ({ topic: r.topic, partition: r.partition, offset: String(Number(r.message.offset) + 1) }),
      retryLater: () => {},
    });
    return { broker, parking, handled, events };
  }
  const replayed = {
    topic: 'orders.retry.1m',
    partition: 0,
    message: { key: Buffer.from('k'), value: Buffer.from('old'), offset: '0', timestamp: '0', headers: { [HEADERS.originalOffset]: '100', [HEADERS.replayedFromDlq]: 'orders.dlq/0:7' } },
  };

  it('a newer record of the key waits while the replayed record is in a later tier', async () => {
    const s = setup();
    // krt dlq replay found k free and sent its DLQ record (main offset 100) through tier 1;
    // it failed there again and went on to tier 2.
    await s.parking.onTierRecord(replayed, async () => ({ outcome: 'tier', commit: { topic: 'orders.retry.1m', partition: 0, offset: '1' } }));
    // A newer record of k arrives on the main topic: parked behind the replayed record.
    await s.parking.onMainRecord({ topic: 'orders', partition: 0, message: { key: Buffer.from('k'), value: Buffer.from('new'), offset: '150', timestamp: '0' } });
    expect(s.handled).toEqual([]);
    expect(s.events.map((e) => e.type)).toEqual(['parked']);
  });

  it('a replayed record runs although its key is not held, where a stale tier copy would not', async () => {
    const s = setup();
    let ran = 0;
    await s.parking.onTierRecord(replayed, async () => (ran++, { outcome: 'success', commit: { topic: 'orders.retry.1m', partition: 0, offset: '1' } }));
    const stale = { ...replayed, message: { ...replayed.message, headers: { [HEADERS.originalOffset]: '100' } } };
    await s.parking.onTierRecord(stale, async () => (ran++, { outcome: 'success', commit: { topic: 'orders.retry.1m', partition: 0, offset: '1' } }));
    expect(ran).toBe(1);
    expect(s.events.map((e) => e.type)).toEqual(['stale-tier-record']);
  });
});

/**
 * The default replay route sends a DLQ record to the first tier, due at once; krt dlq replay
 * finds its key free, but by the time the tier record comes due another record of the key is
 * in retry (#23 runtime brief, item 1). It waits its turn as any record of a held key does.
 */
describe('a replayed record whose key is busy when it comes due', () => {
  const consumer = billingDescriptor({ ordering: 'park-by-key', groups: { ...billingDescriptor().groups, retry: 'billing-order-confirmed' } });
  const [tier1m] = consumer.tiers;
  const T0 = 1_000_000;

  function world() {
    const clock = new VirtualClock(T0);
    const broker = new MemoryBroker(clock);
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
    const handled: string[] = [];
    /** How often each value still fails with a 503 (into the tiers). */
    const failures = new Map<string, number>();
    const start = async (): Promise<RetryingConsumer> => {
      const retrying = createRetryingConsumer(consumer, {
        kafka: broker.port(),
        clock,
        random: () => 0.5,
        handler: async (record: ConsumedRecord) => {
          const label = `${record.message.key?.toString()}:${valueOf(record)}`;
          const left = failures.get(label) ?? 0;
          if (left > 0) {
            failures.set(label, left - 1);
            handled.push(`${label} FAIL`);
            throw httpError(503);
          }
          handled.push(label);
        },
      });
      await retrying.start();
      return retrying;
    };
    const produce = (key: string, value: string) => broker.append(consumer.mainTopic, { key: Buffer.from(key), value: Buffer.from(value), partition: 0 });
    /** What krt dlq replay's default route writes: the first tier, due now, the original partition and offset. */
    const replay = (key: string, value: string, originalOffset: number) =>
      broker.append(tier1m!.topic, {
        key: Buffer.from(key),
        value: Buffer.from(value),
        partition: 0,
        headers: {
          [HEADERS.attempt]: '2',
          [HEADERS.dueAt]: String(clock.now()),
          [HEADERS.originalTopic]: consumer.mainTopic,
          [HEADERS.originalPartition]: '0',
          [HEADERS.originalOffset]: String(originalOffset),
          [HEADERS.replayedFromDlq]: `${consumer.dlqTopic}/0:7`,
        },
      });
    return { clock, broker, handled, failures, start, produce, replay };
  }

  it('runs after the record in retry and the records parked behind it, not before', async () => {
    const w = world();
    w.produce('k', 'old'); // offset 0: reached the DLQ long ago (its DLQ record is replayed below)
    w.failures.set('k:a', 2); // offset 1: into the 1m tier, then the 10m tier
    w.produce('k', 'a');
    w.produce('k', 'b'); // offset 2: parked behind a
    const retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.handled.length === 3 }); // a failed in the 1m tier too: now in the 10m tier
    expect(w.handled).toEqual(['k:old', 'k:a FAIL', 'k:a FAIL']);

    w.replay('k', 'old', 0); // due now, while a waits in the 10m tier
    w.failures.set('m:x', 1); // another key's retry behind it in the 1m tier does not wait for k
    w.produce('m', 'x');
    await w.broker.run();
    await retrying.stop();
    expect(w.handled).toEqual(['k:old', 'k:a FAIL', 'k:a FAIL', 'm:x FAIL', 'm:x', 'k:a', 'k:b', 'k:old']);
    expect(w.broker.committedOffset(consumer.groups.main, tier1m!.topic, 0)).toBe(3); // k:a, the replayed record, m:x
  });

  it('waits for its turn across a restart of the consumer', async () => {
    const w = world();
    w.produce('k', 'old');
    w.failures.set('k:a', 2);
    w.produce('k', 'a');
    w.produce('k', 'b');
    const first = await w.start();
    await w.broker.run({ stopWhen: () => w.handled.length === 3 });
    w.replay('k', 'old', 0);
    await w.broker.run({ stopWhen: () => w.clock.now() > T0 + 120_000 }); // the replayed record came due and waits
    await first.stop();
    expect(w.handled).toEqual(['k:old', 'k:a FAIL', 'k:a FAIL']);
    // Its tier partition is committed up to it, not past: the restart reads it again.
    expect(w.broker.committedOffset(consumer.groups.main, tier1m!.topic, 0)).toBe(1);

    const second = await w.start();
    await w.broker.run();
    await second.stop();
    expect(w.handled).toEqual(['k:old', 'k:a FAIL', 'k:a FAIL', 'k:a', 'k:b', 'k:old']);
  });
});
