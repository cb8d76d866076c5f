import type { RetryEvent } from '../../src/runtime/events';
import { createKeyParking } from '../../src/runtime/key-parking';
import { decodeParkState, emptyParkState, keyHash, parkStateMetadata } from '../../src/runtime/park-state';
import type { ParkState } from '../../src/runtime/park-state';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';

/**
 * Found by attack 11. A shed at a budget that keeps one hold keeps none: shedToFit keeps the
 * state's id and measures the kept hold with the lost mark it adds for the dropped ones, so the
 * hold goes; then stateCommit's fitId drops the id anyway (the mark made one hold with the id
 * too large). Both are lost, where "a budget lowered under the id costs the id, never a key's
 * hold" (fitId) would have kept the hold in the id's place.
 *
 * Scenario (kafkajs): the stored state at position 6 has its id and holds k0 at 0 and k1 at 1.
 * The broker's `offset.metadata.max.bytes` comes down to exactly what the state with its id and
 * k0's hold alone takes (43 bytes; the Confluent client's guessed-refusal floor is this very
 * size, oneHoldBytes, so there every shed of two holds or more lands here). x@6 runs, its commit
 * is refused, the state is read again and shed.
 *
 * Seen: the budget lowered to 57, then 45; `park-state-shed` with holdsDropped 2; the committed
 * state `+0 ~5` (no id, no hold): k0's
 * order given up though `+0 ~5 k0@6` (36 bytes) fits.
 *
 * At fault: shed-park-state.ts shedToFit() (keeps `stored.id`, drops holds until the state with
 * the id and the mark fits) against key-parking.ts fitId() (run on the stored state, before the
 * mark, then again on the shed state, where it drops the id). Class: two rules for what goes
 * first under a budget that disagree.
 *
 * Fix: in shedToFit, apply fitId's rule to the shed state as it grows: once the state with its
 * mark leaves no room for one hold beside the id, drop the id, not the hold.
 *
 * Fixed: shedToFit gives up the id before a hold, as fitId rules (shed-park-state.ts).
 */
describe('a stored state shed to a budget that keeps one hold without the state id', () => {
  const k0 = keyHash(Buffer.from('k0'));
  const k1 = keyHash(Buffer.from('k1'));

  it('keeps the oldest hold and gives up the id', async () => {
    const broker = new MemoryBroker(new VirtualClock(0));
    broker.throwReaction = 'kafkajs';
    broker.createTopic('orders', 1);
    const stored: ParkState = { ...emptyParkState(6n), id: 'AbCd-_12' };
    stored.held.set(k0, 0n);
    stored.held.set(k1, 1n);
    broker.commit('g', [{ topic: 'orders', partition: 0, offset: '6', metadata: parkStateMetadata(stored) }]);
    const oneHoldWithId: ParkState = { ...emptyParkState(6n), id: 'AbCd-_12', held: new Map([[k0, 0n]]) };
    broker.metadataMaxBytes = Buffer.byteLength(parkStateMetadata(oneHoldWithId));
    expect(broker.metadataMaxBytes).toBe(43);

    const events: RetryEvent[] = [];
    const consumer = broker.port().consumer('g');
    const parking = createKeyParking({
      mainTopic: 'orders',
      tierTopics: [],
      consumer: () => consumer,
      handle: async () => 'success',
      emit: (e) => events.push(e),
      budgetBytes: 4000,
      holdExpiryMs: 3_600_000,
      now: () => 0,
      setTimer: () => () => {},
      commitOffsetFor: (r) => ({ topic: r.topic, partition: r.partition, offset: String(Number(r.message.offset) + 1) }),
      retryLater: () => {},
    });
    const x: ConsumedRecord = { topic: 'orders', partition: 0, message: { key: Buffer.from('x'), value: Buffer.from('v'), offset: '6', timestamp: '0' } };
    await expect(parking.onMainRecord(x)).rejects.toThrow(); // refused as too large
    await parking.onMainRecord(x); // read again: shed, then x runs

    expect(events.find((e) => e.type === 'park-state-shed')).toMatchObject({ holdsDropped: 1 });
    const committed = decodeParkState(BigInt(broker.committedOffset('g', 'orders', 0)!), broker.committedMetadata('g', 'orders', 0));
    expect(committed.held.get(k0)).toBe(0n);
  });
});
