import { keyHash, parkStateMetadata } from '../../src/runtime/park-state';
import type { ParkState } from '../../src/runtime/park-state';
import { MAIN, mainRecord, parkingWorld } from './key-parking-world';

const hash = (key: string) => keyHash(Buffer.from(key));
/** Position 10 (a transaction marker there: the next record is at 11), j held at 5, j's record at 7 parked. */
const STATE: ParkState = { position: 10n, held: new Map([[hash('j'), 5n]]), parked: new Map([[7n, hash('j')]]) };

/**
 * Every record past park-by-key's position is now confirmed by a seek back to the position
 * (soughtPast 'position'); the seek back is made again every SEEK_AGAIN_MS until a record at or
 * before the position is read (parking-seek-back.ts). A partition paused at its budget reads
 * nothing: a seek back pending when it pauses (here: a record past a transaction marker, fetched
 * before the pause took effect) is made again every half second for as long as the key is held,
 * minutes to days, each time under the partition's lock.
 */
describe('review 51: a main partition paused at its budget with a seek back to its position pending', () => {
  it('is not sought again every half second while it stays paused', async () => {
    const w = parkingWorld({ budgetBytes: Buffer.byteLength(parkStateMetadata(STATE)) });
    w.broker.commit('g', [{ topic: MAIN, partition: 0, offset: '7', metadata: parkStateMetadata(STATE) }]);
    await w.parking.onMainRecord(mainRecord(7, 'j', 'b')); // brings the load, which seeks to 7: read again
    await w.parking.onMainRecord(mainRecord(7, 'j', 'b')); // j's parked record in memory again: nothing missing, at the budget
    expect(w.pauses).toEqual(['pause 0']);
    // Fetched before the pause took effect: past the marker at 10, sought back to 10.
    await w.parking.onMainRecord(mainRecord(11, 'k', 'c'));
    const soughtWhenPaused = w.seeks.length;
    for (let at = 500; at <= 60_000; at += 500) await w.advanceTo(at);
    expect(w.pauses).toEqual(['pause 0']); // still paused: j is held
    expect(w.seeks.length - soughtWhenPaused).toBeLessThanOrEqual(5);
  });
});
