import { markWorthWaitingOut } from '../../src/runtime/commit-patience';
import { createHoldClocks } from '../../src/runtime/hold-clocks';
import { emptyParkState } from '../../src/runtime/park-state';
import { ParkingBudget } from '../../src/runtime/parking-budget';
import { createParkingCommits } from '../../src/runtime/parking-commits';
import { createParkingPatience } from '../../src/runtime/parking-patience';
import type { PartitionParking } from '../../src/runtime/partition-parking';
import type { ConsumerPort, OffsetCommit } from '../../src/runtime/port';

/*
 * parking-commits.ts sendCommits(): a state commit of main partition p the broker accepts is
 * what the patience of p's next state commit is measured over (parking-patience.ts stored), and
 * a tier offset stored since is not: a state commit refused for a moment, while the group still
 * holds the state stored before, is waited out and sent again. (Session 54: line 195's `!==`,
 * a tier commit kept as p's instead of the state, survived the suites; its `true` and `false`,
 * every commit kept or none, fail this too.)
 */
const MAIN = 'orders';
const TIER = 'orders-retry-1m';

function commitsWorld() {
  let now = 0;
  /** The group's commits, by topic (partition 0 only). */
  const group = new Map<string, OffsetCommit>();
  const refuse: ((offsets: OffsetCommit[]) => boolean)[] = [];
  const consumer = {
    commitOffsets: async (offsets: OffsetCommit[]) => {
      if (refuse.shift()?.(offsets)) throw markWorthWaitingOut(new Error('The coordinator is loading offsets'));
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
  // A record's callback holds p's lock (it heartbeats): its state commits may be waited out.
  patience.begin(0, async () => {});
  const owner = {} as PartitionParking;
  const state = emptyParkState(10n);
  const stateCommit = (offset: string, metadata: string): Promise<void> => commits.commitState(0, state, [{ topic: MAIN, partition: 0, offset, metadata }], owner);
  const tierCommit = (offset: string): Promise<void> => commits.commitState(0, state, [{ topic: TIER, partition: 0, offset }]);
  return { stateCommit, tierCommit, group, refuseNext: () => void refuse.push(() => true) };
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
