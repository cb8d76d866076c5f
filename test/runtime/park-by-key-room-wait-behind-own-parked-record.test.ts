import { emptyParkState, keyHash, parkStateMetadata, retryIdOfReplay, takeHold } from '../../src/runtime/park-state';
import type { ParkState } from '../../src/runtime/park-state';
import { MAIN, mainRecord, parkingWorld, replayedRecord, TIER, tierRecord } from './key-parking-world';

/**
 * Found by attack 12's widened property (seed 1) once replays past the position held their key:
 * a STALLED key, its records LOST, under a broker whose metadata limit the budget learns from a
 * refusal. The same holds for a replay below the position, here.
 *
 * Scenario: j's retry holds j (j@5); a replay of j (original 3) waits its turn; j@10 parks behind
 * the hold. j's retry succeeds and releases j; the replay runs, goes on to a later tier and holds
 * j, but the broker refuses that state as too large: the budget comes down under it, and the
 * release's state is read again. j's retry is delivered again and releases j again; now the
 * replay (first in j's queue: it waited before j@10 was read) waits for room, and the only room
 * to be had is j@10's, which waits behind it. Nothing else is held, so no release ever comes.
 *
 * Seen: the replay and j@10 never ran again. Fixed: a record waits for room only while some hold
 * may release; with none, it runs and its hold is skipped (parking-hold-skipped), as a hold that
 * cannot fit is: the key's order is what it costs, never a record.
 */
describe('park-by-key: a tier record waiting for room while nothing is held', () => {
  const hash = keyHash(Buffer.from('j'));
  const RETRY_ID = retryIdOfReplay(TIER, 0, '0', '0');
  const bytes = (state: ParkState) => Buffer.byteLength(parkStateMetadata(state));

  it('runs with its hold skipped instead of waiting for room only its own key\'s parked record could make', async () => {
    const start: ParkState = { ...emptyParkState(10n), held: new Map([[hash, 5n]]) };
    const replayHeld: ParkState = { ...emptyParkState(11n), parked: new Map([[10n, hash]]) };
    takeHold(replayHeld, hash, 3n, RETRY_ID);
    const w = parkingWorld({ outcomes: { 'tier j@3': 'tier' }, brokerMaxBytes: bytes(replayHeld) - 1 });
    w.broker.commit('g', [{ topic: MAIN, partition: 0, offset: '10', metadata: parkStateMetadata(start) }]);

    await w.runTier(replayedRecord(0, 'j', 3)); // j is held: it waits its turn
    await w.parking.onMainRecord(mainRecord(10, 'j', 'next')); // parks behind the hold
    await expect(w.runTier(tierRecord(1, 'j', 5))).rejects.toThrow('too large'); // the replay's hold is refused
    expect(w.handled).toEqual(['tier j@5', 'tier j@3']);

    await w.runTier(tierRecord(1, 'j', 5)); // delivered again: releases j again
    await w.parking.onMainRecord(mainRecord(10, 'j', 'next')); // read again after the reload
    await w.settle();
    expect(w.handled).toEqual(['tier j@5', 'tier j@3', 'tier j@5', 'tier j@3', 'j:next']);
    expect(w.ofType('parking-hold-skipped')).toHaveLength(1);
    expect(w.state().held.size).toBe(0);
    expect(w.state().parked.size).toBe(0);
  });
});
