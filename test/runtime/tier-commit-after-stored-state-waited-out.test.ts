import { markWorthWaitingOut } from '../../src/runtime/commit-patience';
import { parkStateMetadata } from '../../src/runtime/park-state';
import { emptyParking, MAIN, parkingCommitsWorld, TIER } from './parking-commits-world';

/*
 * parking-commits.ts commitTiers(): the tier offsets sent after the state they follow was
 * stored are waited out as the state was, in a record's callback, over the group's commit of
 * their partition as this member knows it: the last it stored in this generation, else the one
 * read at the load. A timer's operation (no heartbeat) does not wait: the refusal stands and
 * the offset is owed. (Session 54: line 180's `false`
 * survived the suites; the other mutants of lines 180 and 181 fail this too.)
 */

function commitsWorld(options: { heartbeat: boolean }) {
  // The tier's commit as the load read it.
  const { commits, patience, group, requests, refuseNext } = parkingCommitsWorld({ group: [{ topic: TIER, partition: 0, offset: '2' }] });
  // A record's callback (it heartbeats) or a timer's operation holds p's lock.
  patience.begin(0, options.heartbeat ? async () => {} : undefined);
  const parking = emptyParking(2n);
  /** One operation's commits: p's state at `position`, and the tier partition handled below `tierOffset`. */
  const operation = (position: bigint, tierOffset: bigint) => {
    parking.state.position = position;
    return commits.commit(0, parking, [
      { topic: MAIN, partition: 0, offset: String(position), metadata: parkStateMetadata(parking.state) },
      { topic: TIER, partition: 0, offset: String(tierOffset), handledBelow: tierOffset },
    ]);
  };
  return { operation, parking, group, requests, refuseTierOnce: () => refuseNext(markWorthWaitingOut(new Error('The coordinator is loading offsets')), (offsets) => offsets.some((o) => o.topic === TIER)) };
}

describe('a tier offset refused for a moment after the state it follows was stored', () => {
  it('is waited out and stored, over the group commit the load read', async () => {
    const w = commitsWorld({ heartbeat: true });
    w.refuseTierOnce();
    await w.operation(10n, 3n);
    expect(w.group.get(TIER)?.offset).toBe('3');
    expect(w.parking.turns.owed(0)).toEqual([]);
  });

  it('is waited out and stored, over the group commit this member stored last', async () => {
    const w = commitsWorld({ heartbeat: true });
    await w.operation(10n, 3n);
    w.refuseTierOnce();
    await w.operation(11n, 5n);
    expect(w.group.get(TIER)?.offset).toBe('5');
    expect(w.parking.turns.owed(0)).toEqual([]);
  });

  it('is not waited out in a timer\'s operation: the refusal stands and the offset is owed', async () => {
    const w = commitsWorld({ heartbeat: false });
    w.refuseTierOnce();
    await expect(w.operation(10n, 3n)).rejects.toThrow('loading offsets');
    expect(w.requests.filter((r) => r.some((o) => o.topic === TIER))).toHaveLength(1);
    expect(w.group.get(TIER)?.offset).toBe('2');
    expect(w.parking.turns.owed(0).map((debt) => debt.sent.offset)).toEqual(['3']);
  });
});
