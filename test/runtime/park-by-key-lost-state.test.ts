import { HEADERS } from '../../src/naming/headers';
import type { RetryEvent } from '../../src/runtime/events';
import { createKeyParking } from '../../src/runtime/key-parking';
import type { HandleOutcome } from '../../src/runtime/record-handler';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { consumer, T0, world } from './park-by-key-world';

/**
 * A partition's park-by-key state can read as lost while a key's retry is in flight: an
 * operator resets the group's offsets (empty metadata), a client commits without metadata,
 * or a reader gets bytes the runtime did not write. The retry in flight must still run.
 */
describe("park-by-key when a partition's state reads as lost", () => {
  const lostEvents = (events: RetryEvent[]) => events.filter((e) => e.type === 'park-state-lost');

  it.each(['empty', 'none', 'trailing bytes'] as const)(
    'runs a retry in flight whose key the lost state held (metadata %s), and says the state was lost',
    async (how) => {
      const w = world();
      w.failOnce.add('k:a');
      w.produce('k', 'a');
      w.produce('other', 'x');
      const first = await w.start();
      await w.broker.run({ until: T0 }); // k:a waits a minute in the first tier, k held
      await first.stop();
      expect(w.handled).toEqual(['k:a FAIL', 'other:x']);
      expect(lostEvents(w.events)).toEqual([]); // a group's first start has nothing to lose
      expect(w.parkState().lostBefore).toBeUndefined();

      w.loseState(how);
      const second = await w.start();
      await w.broker.run();
      await second.stop();
      expect(w.handled).toEqual(['k:a FAIL', 'other:x', 'k:a']);
      expect(w.events.filter((e) => e.type === 'stale-tier-record')).toEqual([]);
      expect(lostEvents(w.events)).toEqual([
        { type: 'park-state-lost', topic: consumer.mainTopic, partition: 0, offset: '2', metadata: how === 'trailing bytes' ? 'unreadable' : 'none' },
      ]);
    },
  );

  it('runs the retry in flight after a newer record of its key that failed since (order suffers only for that key)', async () => {
    const w = world();
    w.failOnce.add('k:a');
    w.failOnce.add('k:b');
    w.produce('k', 'a');
    w.produce('other', 'x');
    const first = await w.start();
    await w.broker.run({ until: T0 });
    await first.stop();

    w.loseState('empty');
    w.produce('k', 'b'); // fails into the tier too: k is held again, by b
    const second = await w.start();
    await w.broker.run();
    await second.stop();
    expect(w.handled).toEqual(['k:a FAIL', 'other:x', 'k:b FAIL', 'k:b', 'k:a']);
    expect(w.parkState().held.size).toBe(0);
  });

  it('keeps the mark of the loss in the state it commits, so a restart before the retry comes due still runs it', async () => {
    const w = world();
    w.failOnce.add('k:a');
    w.produce('k', 'a');
    w.produce('other', 'x');
    const first = await w.start();
    await w.broker.run({ until: T0 });
    await first.stop();

    w.loseState('empty');
    const second = await w.start();
    w.produce('other', 'y'); // commits the state again, lost metadata replaced
    await w.broker.run({ until: T0 });
    await second.stop();
    expect(w.parkState()).toMatchObject({ position: 3n, lostBefore: 2n });

    const third = await w.start();
    await w.broker.run();
    await third.stop();
    expect(w.handled).toEqual(['k:a FAIL', 'other:x', 'other:y', 'k:a']);
    expect(lostEvents(w.events)).toHaveLength(1); // the restart read a state, not a loss
  });
});

/** Key parking alone over a partition whose commit (offset 10) has no state: the watermark decides. */
describe('key parking after a lost state', () => {
  function setup() {
    const broker = new MemoryBroker(new VirtualClock(0));
    broker.createTopic('orders', 1);
    broker.commit('g', [{ topic: 'orders', partition: 0, offset: '10' }]);
    const events: RetryEvent[] = [];
    const port = broker.port().consumer('g');
    const parking = createKeyParking({
      mainTopic: 'orders',
      tierTopics: [],
      consumer: () => port,
      handle: async () => 'success',
      emit: (e) => events.push(e),
      budgetBytes: 4000,
      holdExpiryMs: 3_600_000,
      now: () => 0,
      setTimer: () => () => {},
      commitOffsetFor: (r) => ({ topic: r.topic, partition: r.partition, offset: String(Number(r.message.offset) + 1) }),
      retryLater: () => {},
    });
    const ran: string[] = [];
    const tierRecord = (key: string, original: number, tierOffset: number): [ConsumedRecord, () => Promise<{ outcome: HandleOutcome; commit: { topic: string; partition: number; offset: string } }>] => [
      { topic: 'orders.retry.1m', partition: 0, message: { key: Buffer.from(key), value: null, offset: String(tierOffset), timestamp: '0', headers: { [HEADERS.originalOffset]: String(original) } } },
      async () => (ran.push(`${key}@${original}`), { outcome: 'success', commit: { topic: 'orders.retry.1m', partition: 0, offset: String(tierOffset + 1) } }),
    ];
    return { broker, parking, events, ran, tierRecord };
  }

  it('runs a tier record from below the offset where the state was lost, and skips a copy of a record read again since', async () => {
    const s = setup();
    await s.parking.onTierRecord(...s.tierRecord('k', 7, 0)); // in retry when the state was lost: cannot be proven stale
    await s.parking.onMainRecord({ topic: 'orders', partition: 0, message: { key: Buffer.from('j'), value: null, offset: '10', timestamp: '0' } });
    await s.parking.onTierRecord(...s.tierRecord('j', 10, 1)); // j's record 10 was read again and ran: a stale copy
    expect(s.ran).toEqual(['k@7']);
    expect(s.events.map((e) => e.type)).toEqual(['park-state-lost', 'stale-tier-record']);
    expect(s.broker.committedOffset('g', 'orders.retry.1m', 0)).toBe(2);
  });
});
