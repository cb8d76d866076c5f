import { parkStateMetadata } from '../../src/runtime/park-state';
import type { OffsetCommit } from '../../src/runtime/port';
import { emptyParking, MAIN, parkingCommitsWorld, TIER } from './parking-commits-world';

/*
 * parking-commits.ts payOwedTierCommits(): a tier offset refused after its state was stored is
 * owed, and paid in a request of its own before p's next state, only while the group's commit of
 * its tier partition is still the one it was owed over (offsets of more than one digit too);
 * otherwise forgiven, and no request goes out empty. A payment refused as too large stays owed as
 * its offset alone; refused otherwise, as it was. (Session 54: 17 mutants of
 * lines 138-150 survived the suites.)
 */

const tooLarge = () => Object.assign(new Error('The metadata field of the offset request was too large'), { type: 'OFFSET_METADATA_TOO_LARGE' });

/** p's state, with its tier partition's group commit at 12 when it loaded. */
function commitsWorld() {
  let noEntry = false;
  const { commits, patience, group, requests, refuseNext } = parkingCommitsWorld({ group: [{ topic: TIER, partition: 0, offset: '12' }], noEntryFor: (topic) => noEntry && topic === TIER });
  /** Refuses the next request that carries a tier offset. */
  const refuseTierNext = (error: Error) => refuseNext(error, (offsets) => offsets.some((o) => o.topic === TIER));
  patience.begin(0, undefined); // a timer's operation: nothing waited out
  const parking = emptyParking(12n);
  parking.state.id = 'AbCd1234'; // its tier commits carry it in their metadata
  const mainCommit = (position: bigint): OffsetCommit => {
    parking.state.position = position;
    return { topic: MAIN, partition: 0, offset: String(position), metadata: parkStateMetadata(parking.state) };
  };
  /** An operation whose tier offset (handled below `tierOffset`) is refused after its state was stored: owed. */
  const owing = async (tierOffset: bigint) => {
    refuseTierNext(new Error('The coordinator is not available'));
    await expect(commits.commit(0, parking, [mainCommit(20n), { topic: TIER, partition: 0, offset: String(tierOffset), handledBelow: tierOffset }])).rejects.toThrow('not available');
    expect(parking.turns.owed(0).map((debt) => debt.sent.offset)).toEqual([String(tierOffset)]);
  };
  /** The next operation, which changes p's state alone. */
  const next = () => commits.commit(0, parking, [mainCommit(21n)]);
  return { owing, next, parking, group, requests, refuseTierNext, answerNoEntry: () => void (noEntry = true) };
}

describe('a tier offset owed since its state was stored', () => {
  it('is paid in a request of its own before the next state, while the group still holds the commit it was owed over', async () => {
    const w = commitsWorld();
    await w.owing(15n);
    const before = w.requests.length;
    await w.next();
    expect(w.requests.slice(before).map((r) => r.map((o) => `${o.topic}@${o.offset}`))).toEqual([[`${TIER}@15`], [`${MAIN}@21`]]);
    expect(w.parking.turns.owed(0)).toEqual([]);
  });

  it('is forgiven, and nothing sent for it, once the group holds another commit of its partition', async () => {
    const w = commitsWorld();
    await w.owing(15n);
    w.group.set(TIER, { topic: TIER, partition: 0, offset: '13' });
    const before = w.requests.length;
    await w.next();
    expect(w.requests.slice(before).map((r) => r.map((o) => `${o.topic}@${o.offset}`))).toEqual([[`${MAIN}@21`]]);
    expect(w.parking.turns.owed(0)).toEqual([]);
  });

  it('is forgiven, and nothing sent for it, when the client answers no commit of its partition', async () => {
    const w = commitsWorld();
    await w.owing(15n);
    w.answerNoEntry();
    const before = w.requests.length;
    await w.next();
    expect(w.requests.slice(before).map((r) => r.map((o) => `${o.topic}@${o.offset}`))).toEqual([[`${MAIN}@21`]]);
    expect(w.parking.turns.owed(0)).toEqual([]);
  });

  it('stays owed as its offset alone when its payment is refused as too large, and the state goes on', async () => {
    const w = commitsWorld();
    await w.owing(15n);
    w.refuseTierNext(tooLarge());
    await w.next();
    expect(w.group.get(MAIN)?.offset).toBe('21');
    expect(w.parking.turns.owed(0).map((debt) => debt.sent)).toEqual([{ topic: TIER, partition: 0, offset: '15' }]);
  });

  it('stays owed as it was when its payment is refused otherwise, and the state goes on', async () => {
    const w = commitsWorld();
    await w.owing(15n);
    const [owed] = w.parking.turns.owed(0);
    w.refuseTierNext(new Error('The coordinator is not available'));
    await w.next();
    expect(w.group.get(MAIN)?.offset).toBe('21');
    expect(w.parking.turns.owed(0)).toEqual([owed]);
    expect(owed!.sent.metadata).toEqual(expect.any(String));
  });
});
