import type { RetryEvent } from '../../src/runtime/events';
import { createKeyParking } from '../../src/runtime/key-parking';
import { emptyParkState, parkStateMetadata } from '../../src/runtime/park-state';
import type { ParkState } from '../../src/runtime/park-state';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';

/**
 * Found by attack 11 (low severity: a broker limit of a few dozen bytes). A state that holds and
 * parks nothing is never shed, but its lost mark (`~d`, the distance from the position back to
 * where the state was lost or a hold skipped) grows with every record: under a limit the
 * runtime claims to run at (the fault property draws limits from 24 bytes; parking-hold-skipped
 * exists for brokers under one hold), the empty state itself outgrows the limit, every commit of
 * the partition is refused, and the same record runs without end: attack 9's loop, back.
 *
 * Scenario (kafkajs): the broker keeps 24 bytes. Partition 0's stored state is empty, its lost
 * mark at offset 0 (a hold skipped long ago), at position 1,679,615 (`~zzzz`: 24 bytes with the
 * NUL). x@1679615 runs; the state at 1,679,616 needs `~10000` (25 bytes): refused, the budget
 * comes down to 24, the state is read again: not shed (nothing held or parked), x runs again,
 * refused again, and so on.
 *
 * Seen: each of five deliveries of x runs it and fails; the commit never moves.
 *
 * At fault: shed-park-state.ts shedToFit() returns undefined for a state with nothing held or
 * parked ("a budget under it costs the id, never a record"); the mark is not the id. Class: a
 * field that grows without bound in a size-limited encoding, outside what the shed may shed.
 *
 * Fixed: an empty state over the budget moves its mark up to its position (`~0`) before it is
 * committed (key-parking.ts fitMark): every tier copy from below it then runs unjudged, never
 * skipped, which costs order only (as a lost state does).
 */
describe('a state with nothing held or parked whose lost mark outgrew a tiny metadata limit', () => {
  it('is committed again (its mark shed), so the partition goes on', async () => {
    const broker = new MemoryBroker(new VirtualClock(0));
    broker.throwReaction = 'kafkajs';
    broker.createTopic('orders', 1);
    const position = 36n ** 4n - 1n;
    const stored: ParkState = { ...emptyParkState(position), lostBefore: 0n };
    broker.commit('g', [{ topic: 'orders', partition: 0, offset: String(position), metadata: parkStateMetadata(stored) }]);
    broker.metadataMaxBytes = 24;
    expect(Buffer.byteLength(parkStateMetadata(stored))).toBe(24);

    const events: RetryEvent[] = [];
    let runs = 0;
    const consumer = broker.port().consumer('g');
    const parking = createKeyParking({
      mainTopic: 'orders',
      tierTopics: [],
      consumer: () => consumer,
      handle: async () => (runs++, 'success'),
      emit: (e) => events.push(e),
      budgetBytes: 4000,
      holdExpiryMs: 3_600_000,
      now: () => 0,
      setTimer: () => () => {},
      commitOffsetFor: (r) => ({ topic: r.topic, partition: r.partition, offset: String(Number(r.message.offset) + 1) }),
      retryLater: () => {},
    });
    const x: ConsumedRecord = { topic: 'orders', partition: 0, message: { key: Buffer.from('x'), value: Buffer.from('v'), offset: String(position), timestamp: '0' } };
    for (let delivery = 0; delivery < 5; delivery++) {
      const done = await parking.onMainRecord(x).then(() => true, () => false);
      if (done) break;
    }

    expect(runs).toBeLessThanOrEqual(2);
    expect(broker.committedOffset('g', 'orders', 0)).toBe(Number(position) + 1);
  });
});
