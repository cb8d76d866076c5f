import { createHoldClocks } from '../../src/runtime/hold-clocks';
import { emptyParkState, parkStateMetadata } from '../../src/runtime/park-state';
import { ParkingBudget } from '../../src/runtime/parking-budget';
import { createParkingCommits } from '../../src/runtime/parking-commits';
import { createParkingPatience } from '../../src/runtime/parking-patience';
import type { PartitionParking } from '../../src/runtime/partition-parking';
import type { ConsumerPort, OffsetCommit } from '../../src/runtime/port';
import { createTierTurns } from '../../src/runtime/tier-turns';

/*
 * parking-commits.ts payOwedTierCommits(): a tier offset refused after its state was stored is
 * owed, and paid in a request of its own before p's next state, only while the group's commit of
 * its tier partition is still the one it was owed over (offsets of more than one digit too);
 * otherwise forgiven, and no request goes out empty. A payment refused as too large stays owed as
 * its offset alone; refused otherwise, as it was. (Session 54: 17 mutants of
 * lines 138-150 survived the suites.)
 */
const MAIN = 'orders';
const TIER = 'orders-retry-1m';

const tooLarge = () => Object.assign(new Error('The metadata field of the offset request was too large'), { type: 'OFFSET_METADATA_TOO_LARGE' });

/** p's state, with its tier partition's group commit at 12 when it loaded. */
function commitsWorld() {
  const group = new Map<string, OffsetCommit>([[TIER, { topic: TIER, partition: 0, offset: '12' }]]);
  const requests: OffsetCommit[][] = [];
  /** Refusals of the next requests that carry a tier offset. */
  const tierRefusals: Error[] = [];
  /** Whether the client answers a read of the tier partition's commit with no entry for it (the port does not promise one). */
  let noEntry = false;
  const consumer = {
    commitOffsets: async (offsets: OffsetCommit[]) => {
      requests.push(offsets);
      if (offsets.some((o) => o.topic === TIER) && tierRefusals.length > 0) throw tierRefusals.shift()!;
      for (const o of offsets) group.set(o.topic, o);
    },
    committed: async (topic: string, partitions: number[]) => (noEntry && topic === TIER ? [] : partitions).map((partition) => ({ partition, offset: group.get(topic)?.offset ?? '-1', metadata: group.get(topic)?.metadata ?? null })),
  } as unknown as ConsumerPort;
  const patience = createParkingPatience({ mainTopic: MAIN, consumer: () => consumer, now: () => 0, setTimer: () => () => {}, emit: () => {} });
  const commits = createParkingCommits({
    mainTopic: MAIN,
    tierTopics: [TIER],
    consumer: () => consumer,
    budget: new ParkingBudget(4096, MAIN, () => {}),
    patience,
    holdClocks: createHoldClocks(() => 0),
    isCurrent: () => true,
  });
  patience.begin(0, undefined); // a timer's operation: nothing waited out
  const parking: PartitionParking = {
    state: emptyParkState(10n),
    records: new Map(),
    heldSince: new Map(),
    turns: createTierTurns(),
    tierHandled: new Map(),
    tierCommitted: new Map([[TIER, 12n]]),
    tierRead: new Map(),
    soughtSinceTaken: false,
  };
  parking.state.id = 'AbCd1234'; // its tier commits carry it in their metadata
  const mainCommit = (position: bigint): OffsetCommit => {
    parking.state.position = position;
    return { topic: MAIN, partition: 0, offset: String(position), metadata: parkStateMetadata(parking.state) };
  };
  /** An operation whose tier offset (handled below `tierOffset`) is refused after its state was stored: owed. */
  const owing = async (tierOffset: bigint) => {
    tierRefusals.push(new Error('The coordinator is not available'));
    await expect(commits.commit(0, parking, [mainCommit(20n), { topic: TIER, partition: 0, offset: String(tierOffset), handledBelow: tierOffset }])).rejects.toThrow('not available');
    expect(parking.turns.owed(0).map((debt) => debt.sent.offset)).toEqual([String(tierOffset)]);
  };
  /** The next operation, which changes p's state alone. */
  const next = () => commits.commit(0, parking, [mainCommit(21n)]);
  return { owing, next, parking, group, requests, refuseTierNext: (error: Error) => void tierRefusals.push(error), answerNoEntry: () => void (noEntry = true) };
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
