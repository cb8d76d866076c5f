import { markWorthWaitingOut } from '../../src/runtime/commit-patience';
import { emptyParkState } from '../../src/runtime/park-state';
import type { PartitionParking } from '../../src/runtime/partition-parking';
import { MAIN, parkingCommitsWorld, TIER } from './parking-commits-world';

/*
 * parking-commits.ts sendCommits(): a state commit of main partition p the broker accepts is
 * what the patience of p's next state commit is measured over (parking-patience.ts stored), and
 * a tier offset stored since is not: a state commit refused for a moment, while the group still
 * holds the state stored before, is waited out and sent again. (Session 54: line 195's `!==`,
 * a tier commit kept as p's instead of the state, survived the suites; its `true` and `false`,
 * every commit kept or none, fail this too.)
 */

function commitsWorld() {
  const { commits, patience, group, refuseNext } = parkingCommitsWorld();
  // A record's callback holds p's lock (it heartbeats): its state commits may be waited out.
  patience.begin(0, async () => {});
  const owner = {} as PartitionParking;
  const state = emptyParkState(10n);
  const stateCommit = (offset: string, metadata: string): Promise<void> => commits.commitState(0, state, [{ topic: MAIN, partition: 0, offset, metadata }], owner);
  const tierCommit = (offset: string): Promise<void> => commits.commitState(0, state, [{ topic: TIER, partition: 0, offset }]);
  return { stateCommit, tierCommit, group, refuseNext: () => refuseNext(markWorthWaitingOut(new Error('The coordinator is loading offsets'))) };
}

describe('a state commit refused for a moment while the group still holds the state stored before it', () => {
  it('is waited out and stored', async () => {
    const w = commitsWorld();
    await w.stateCommit('10', 'first');
    w.refuseNext();
    await w.stateCommit('11', 'second');
    expect(w.group.get(MAIN)).toMatchObject({ offset: '11', metadata: 'second' });
  });

  it('is waited out and stored when a tier offset was stored since that state', async () => {
    const w = commitsWorld();
    await w.stateCommit('10', 'first');
    await w.tierCommit('3');
    w.refuseNext();
    await w.stateCommit('11', 'second');
    expect(w.group.get(MAIN)).toMatchObject({ offset: '11', metadata: 'second' });
    expect(w.group.get(TIER)).toMatchObject({ offset: '3' });
  });
});
