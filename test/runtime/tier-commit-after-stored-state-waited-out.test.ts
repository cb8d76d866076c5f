import { markWorthWaitingOut } from '../../src/runtime/commit-patience';
import { createHoldClocks } from '../../src/runtime/hold-clocks';
import { emptyParkState, parkStateMetadata } from '../../src/runtime/park-state';
import { ParkingBudget } from '../../src/runtime/parking-budget';
import { createParkingCommits } from '../../src/runtime/parking-commits';
import { createParkingPatience } from '../../src/runtime/parking-patience';
import type { PartitionParking } from '../../src/runtime/partition-parking';
import type { ConsumerPort, OffsetCommit } from '../../src/runtime/port';
import { createTierTurns } from '../../src/runtime/tier-turns';

/*
 * parking-commits.ts commitTiers(): the tier offsets sent after the state they follow was
 * stored are waited out as the state was, in a record's callback, over the group's commit of
 * their partition as this member knows it: the last it stored in this generation, else the one
 * read at the load. A timer's operation (no heartbeat) does not wait: the refusal stands and
 * the offset is owed. (Session 54: line 180's `false`
 * survived the suites; the other mutants of lines 180 and 181 fail this too.)
 */
const MAIN = 'orders';
const TIER = 'orders-retry-1m';

function commitsWorld(options: { heartbeat: boolean }) {
  let now = 0;
  /** The group's commits, by topic (partition 0 only): the tier's as the load read it. */
  const group = new Map<string, OffsetCommit>([[TIER, { topic: TIER, partition: 0, offset: '2' }]]);
  const requests: OffsetCommit[][] = [];
  let refuseTier = false;
  const consumer = {
    commitOffsets: async (offsets: OffsetCommit[]) => {
      requests.push(offsets);
      if (refuseTier && offsets.some((o) => o.topic === TIER)) {
        refuseTier = false;
        throw markWorthWaitingOut(new Error('The coordinator is loading offsets'));
      }
      for (const o of offsets) group.set(o.topic, o);
    },
    committed: async (topic: string, partitions: number[]) => partitions.map((partition) => ({ partition, offset: group.get(topic)?.offset ?? '-1', metadata: group.get(topic)?.metadata ?? null })),
  } as unknown as ConsumerPort;
  const patience = createParkingPatience({ mainTopic: MAIN, consumer: () => consumer, now: () => now, setTimer: () => () => {}, sleep: async (ms) => void (now += ms), emit: () => {} });
  const commits = createParkingCommits({
    mainTopic: MAIN,
    tierTopics: [TIER],
    consumer: () => consumer,
    budget: new ParkingBudget(4096, MAIN, () => {}),
    patience,
    holdClocks: createHoldClocks(() => now),
    isCurrent: () => true,
  });
  // A record's callback (it heartbeats) or a timer's operation holds p's lock.
  patience.begin(0, options.heartbeat ? async () => {} : undefined);
  const parking: PartitionParking = {
    state: emptyParkState(10n),
    records: new Map(),
    heldSince: new Map(),
    turns: createTierTurns(),
    tierHandled: new Map(),
    tierCommitted: new Map([[TIER, 2n]]),
    tierRead: new Map(),
    soughtSinceTaken: false,
  };
  /** One operation's commits: p's state at `position`, and the tier partition handled below `tierOffset`. */
  const operation = (position: bigint, tierOffset: bigint) => {
    parking.state.position = position;
    return commits.commit(0, parking, [
      { topic: MAIN, partition: 0, offset: String(position), metadata: parkStateMetadata(parking.state) },
      { topic: TIER, partition: 0, offset: String(tierOffset), handledBelow: tierOffset },
    ]);
  };
  return { operation, parking, group, requests, refuseTierOnce: () => void (refuseTier = true) };
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
