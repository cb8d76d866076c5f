import { HEADERS } from '../../src/naming/headers';
import { createKeyParking } from '../../src/runtime/key-parking';
import type { RetryEvent } from '../../src/runtime/events';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';

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
    await s.parking.onMainRecord({ topic: 'orders', partition: 0, message: { key: Buffer.from('k'), value: Buffer.from('new'), offset: '200', timestamp: '0' } });
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
