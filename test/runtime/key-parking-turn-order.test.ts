import { emptyParkState, parkStateMetadata } from '../../src/runtime/park-state';
import { MAIN, mainRecord, parkingWorld, replayedRecord, tierRecord } from './key-parking-world';

describe('key parking: the order of a released key’s waiting records', () => {
  it('a replayed record that came due before a main record of its key was parked runs before that record', async () => {
    const w = parkingWorld({ outcomes: { 'k:a': 'tier' } });
    w.broker.commit('g', [{ topic: MAIN, partition: 0, offset: '10', metadata: parkStateMetadata(emptyParkState(10n)) }]);
    await w.parking.onMainRecord(mainRecord(10, 'k', 'a')); // k held
    await w.runTier(replayedRecord(0, 'k', 3)); // waits its turn behind the position, 11
    await w.parking.onMainRecord(mainRecord(11, 'k', 'b')); // parked at 11, after the replayed record came
    await w.runTier(tierRecord(1, 'k', 10)); // k's retry succeeds: its waiting records run in the order they came
    expect(w.handled).toEqual(['k:a', 'tier k@10', 'tier k@3', 'k:b']);
  });
});
