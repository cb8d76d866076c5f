import { PARK_STATE_HEADER } from '../../src/naming/headers';
import { emptyParkState, keyHash, parkStateMetadata, retryIdOfReplay } from '../../src/runtime/park-state';
import { MAIN, mainRecord, parkingWorld, replayedRecord, TIER, tierRecord } from './key-parking-world';

/**
 * Attack 20 on 0761044: a LOST record (and an older update run over a newer one).
 *
 * isCurrentRetry now takes ANY copy with an unreadable x-park-state whose original offset is
 * past a hold that has a retry id for that hold's retry. But such a copy may be a stale copy of
 * another retry of the key (a duplicate publish of a hop of a retry that already ended): its
 * original offset only has to be past the replay's hold, and a replay below the position holds
 * at its own (old) offset, one past it at the position. Taken for the replay's retry, the stale
 * copy runs (over the key's newer records) and, when it ends, releases the replay's hold; the
 * replay's own copy then meets a key not held by its retry, is no replay itself, not unjudged:
 * skipped as stale. The replay never succeeds nor reaches the DLQ.
 */
describe('attack 20: a damaged stale copy past a replay\'s hold', () => {
  it('a damaged duplicate copy of a main record\'s ended retry does not end a replay\'s retry held below it', async () => {
    const w = parkingWorld({ outcomes: { 'k:recent': 'tier' } });
    await w.parking.onMainRecord(mainRecord(0, 'x', 'a'));
    await w.parking.onMainRecord(mainRecord(1, 'x', 'b'));
    await w.parking.onMainRecord(mainRecord(2, 'k', 'recent')); // fails: k held at 2 (a main record's retry)
    const stateId = w.state().id!;
    await w.runTierAs(tierRecord(0, 'k', 2, { [PARK_STATE_HEADER]: stateId }), 'success'); // its copy ends it: k free
    expect(w.state().held.size).toBe(0);
    // krt dlq replay writes an older DLQ record of k (original offset 0): it holds k at 0 with its retry id.
    await w.runTierAs(replayedRecord(1, 'k', 0), 'tier');
    const replayCopy = w.copies[1]!;
    expect([...w.state().held]).toEqual([[keyHash(Buffer.from('k')), 0n]]);
    await w.parking.onMainRecord(mainRecord(3, 'k', 'newer')); // parks behind the replay's hold
    // k:recent's hop was published twice (a producer retry); the duplicate's x-park-state arrives damaged.
    await w.runTierAs(tierRecord(2, 'k', 2, { [PARK_STATE_HEADER]: `${stateId}X` }), 'success');
    // The replay's own (only) copy.
    await w.runTierAs(tierRecord(3, 'k', 0, { [PARK_STATE_HEADER]: replayCopy }), 'success');
    await w.settle();
    expect(w.handled).toContain('tier k@0@3'); // now: skipped as stale, the replay never succeeds nor reaches the DLQ
    expect(w.ofType('stale-tier-record').map((e) => e.record.message.offset)).not.toContain('3');
  });

  it('two replays of one key past the position: a damaged duplicate of the first one\'s ended hop does not release the second\'s hold', async () => {
    const w = parkingWorld();
    w.broker.commit('g', [{ topic: MAIN, partition: 0, offset: '10', metadata: parkStateMetadata(emptyParkState(10n)) }]);
    const R2 = retryIdOfReplay(TIER, 0, '2', '0');
    await w.runTierAs(replayedRecord(0, 'k', 15), 'tier'); // replay 1: holds k at 10 with its retry id
    const firstCopy = w.copies[0]!;
    await w.runTierAs(tierRecord(1, 'k', 15, { [PARK_STATE_HEADER]: firstCopy }), 'success'); // its copy ends it: k free
    expect(w.state().held.size).toBe(0);
    await w.runTierAs(replayedRecord(2, 'k', 16), 'tier'); // replay 2: holds k at 10 with its own retry id
    expect(w.state().retryIds?.get(keyHash(Buffer.from('k')))).toBe(R2);
    const secondCopy = w.copies[2]!;
    await w.parking.onMainRecord(mainRecord(10, 'k', 'newer')); // parks behind replay 2's hold
    // The first replay's hop published twice; the duplicate's x-park-state arrives damaged.
    await w.runTierAs(tierRecord(3, 'k', 15, { [PARK_STATE_HEADER]: `${firstCopy}X` }), 'success');
    // Replay 2's own copy.
    await w.runTierAs(tierRecord(4, 'k', 16, { [PARK_STATE_HEADER]: secondCopy }), 'success');
    await w.settle();
    // Replay 2's copy must run (it is its retry's only copy); now it is skipped as stale: lost.
    expect(w.handled).toContain('tier k@16@4');
    expect(w.ofType('stale-tier-record').map((e) => e.record.message.offset)).not.toContain('4');
  });
});
