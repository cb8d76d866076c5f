import { PARK_STATE_HEADER } from '../../src/naming/headers';
import { emptyParkState, keyHash, parkStateMetadata } from '../../src/runtime/park-state';
import { MAIN, mainRecord, parkingWorld, replayedRecord, tierRecord } from './key-parking-world';

/** Attack 20 on 0761044: scenarios tried that held (pass now). */
describe('attack 20 (held): a main record at the position of a replay\'s @0 hold', () => {
  it('parks behind it, runs after it, holds at the same offset without a retry id; the replay\'s duplicate is then stale and the main copy current', async () => {
    const w = parkingWorld({ outcomes: { 'k:main': 'tier' } });
    w.broker.commit('g', [{ topic: MAIN, partition: 0, offset: '10', metadata: parkStateMetadata(emptyParkState(10n)) }]);
    await w.runTierAs(replayedRecord(0, 'k', 10), 'tier'); // holds k at 10 (=position) with R
    await w.parking.onMainRecord(mainRecord(10, 'k', 'main')); // parks at 10
    expect([...w.state().parked]).toEqual([[10n, keyHash(Buffer.from('k'))]]);
    const replayCopy = w.copies[0]!;
    await w.runTierAs(tierRecord(1, 'k', 10, { [PARK_STATE_HEADER]: replayCopy }), 'success');
    await w.settle();
    const state = w.state();
    expect([...state.held]).toEqual([[keyHash(Buffer.from('k')), 10n]]);
    expect(state.retryIds).toBeUndefined();
    const before = w.handled.length;
    await w.runTierAs(tierRecord(2, 'k', 10, { [PARK_STATE_HEADER]: replayCopy }), 'success'); // replay's duplicate: stale
    expect(w.handled.length).toBe(before);
    await w.runTierAs(tierRecord(3, 'k', 10, { [PARK_STATE_HEADER]: state.id! }), 'success'); // k:main's copy: runs
    expect(w.handled[w.handled.length - 1]).toBe('tier k@10@3');
    expect(w.state().held.size).toBe(0);
  });
});
