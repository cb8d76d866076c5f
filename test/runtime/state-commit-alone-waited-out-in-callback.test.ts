import { markWorthWaitingOut } from '../../src/runtime/commit-patience';
import { parkStateMetadata } from '../../src/runtime/park-state';
import { emptyParking, MAIN, parkingCommitsWorld } from './parking-commits-world';

/*
 * parking-commits.ts commit(): an operation that changed main partition p's state and no tier
 * offset sends the state alone, and in a record's callback waits out a refusal worth it, as its
 * records ran: failing would run them again. (Stryker's survivor on line 85: the state sent
 * alone with no owner, never waited out.)
 */

describe('a state sent alone and refused for a moment in a record\'s callback', () => {
  it('is waited out and stored', async () => {
    const { commits, patience, group, refuseNext } = parkingCommitsWorld({ group: [{ topic: MAIN, partition: 0, offset: '9', metadata: '' }] });
    refuseNext(markWorthWaitingOut(new Error('The coordinator is loading offsets')));
    patience.stored(0, { offset: '9', metadata: '' }); // as the load read it
    patience.begin(0, async () => {}); // a record's callback: it heartbeats
    const parking = emptyParking();
    await commits.commit(0, parking, [{ topic: MAIN, partition: 0, offset: '10', metadata: parkStateMetadata(parking.state) }]);
    expect(group.get(MAIN)?.offset).toBe('10');
  });
});
