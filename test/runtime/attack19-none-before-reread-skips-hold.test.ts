import { emptyParkState, keyHash, parkStateMetadata, retryIdOfReplay, takeHold } from '../../src/runtime/park-state';
import type { ParkState } from '../../src/runtime/park-state';
import { MAIN, mainRecord, parkingWorld, replayedRecord, TIER, tierRecord } from './key-parking-world';

/**
 * Attack 19 on 2f3e92d: an OLDER UPDATE OVER A NEWER ONE, from a hold skipped that a re-read
 * would have made room for. roomForHold answers 'none' whenever nothing is held ("no release
 * can come"), but after a reload the state's parked records are not in memory yet: the seek
 * reads them again, the re-read drains them (onMainRecord: "the parked records it ran made
 * room") and drainFreeKeys then runs tier records that waited for room. A tier record that comes
 * between the load and that re-read is told 'none' and runs with its hold skipped, so its key's
 * newer main record runs before its retry's next hop.
 *
 * Scenario: k's retry holds k (k@11), k@12 parked behind it. A rebalance (forget) reloads the
 * state; k's copy ends its retry and releases k, but k@12 is not in memory: the state keeps
 * k@12 parked, nothing held. A replay of m (original 5) comes: the state with m's hold is over
 * the budget by a byte; nothing held, so 'none': it runs and goes on to a later tier unheld.
 * The re-read of 12 runs k@12 (room again), m@20 runs at once, and m's replay's next hop (an
 * older update of m) lands after it.
 *
 * Fixed: 'none' only when no room can come: nothing held and every parked record read again
 * (key-parking.ts roomMayCome); before the re-read the record waits.
 */
describe('attack 19: a tier record between a reload and the re-read of the parked records', () => {
  const hash = (key: string) => keyHash(Buffer.from(key));
  const bytes = (state: ParkState) => Buffer.byteLength(parkStateMetadata(state));
  const RETRY_ID = retryIdOfReplay(TIER, 0, '1', '0');

  it('waits for the room the re-read makes instead of running with its hold skipped', async () => {
    const stored: ParkState = { ...emptyParkState(20n), parked: new Map([[12n, hash('k')]]) };
    takeHold(stored, hash('k'), 11n, undefined);
    const released: ParkState = { ...emptyParkState(20n), parked: new Map([[12n, hash('k')]]) };
    const withM: ParkState = { ...released, held: new Map(), retryIds: new Map() };
    takeHold(withM, hash('m'), 5n, RETRY_ID);
    const w = parkingWorld({ budgetBytes: bytes(withM) - 1, outcomes: { 'tier m@5': 'tier' } });
    expect(bytes(stored)).toBeLessThan(bytes(withM));
    w.broker.commit('g', [{ topic: MAIN, partition: 0, offset: '12', metadata: parkStateMetadata(stored) }]);

    await w.runTier(tierRecord(0, 'k', 11)); // k's retry ends; k@12 is not in memory (read again from 12)
    expect(w.state().held.size).toBe(0);
    expect([...w.state().parked]).toEqual([[12n, hash('k')]]);

    await w.runTier(replayedRecord(1, 'm', 5)); // nothing held: 'none', runs with its hold skipped
    await w.parking.onMainRecord(mainRecord(12, 'k', 'parked')); // the seek's re-read: k@12 runs, room again
    await w.parking.onMainRecord(mainRecord(20, 'm', 'newer'));
    await w.settle();

    // m's replay is in retry: its key's newer record must wait for it (park-by-key's promise).
    expect(w.ofType('parking-hold-skipped')).toEqual([]);
    expect(w.handled).not.toContain('m:newer');
  });
});
