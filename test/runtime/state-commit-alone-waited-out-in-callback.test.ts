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
 * parking-commits.ts commit(): an operation that changed main partition p's state and no tier
 * offset sends the state alone, and in a record's callback waits out a refusal worth it, as its
 * records ran: failing would run them again. (Stryker's survivor on line 85: the state sent
 * alone with no owner, never waited out.)
 */
const MAIN = 'orders';
const TIER = 'orders-retry-1m';

describe('a state sent alone and refused for a moment in a record\'s callback', () => {
  it('is waited out and stored', async () => {
    let now = 0;
    const group = new Map<string, OffsetCommit>([[MAIN, { topic: MAIN, partition: 0, offset: '9', metadata: '' }]]);
    let refuse = true;
    const consumer = {
      commitOffsets: async (offsets: OffsetCommit[]) => {
        if (refuse) {
          refuse = false;
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
    patience.stored(0, { offset: '9', metadata: '' }); // as the load read it
    patience.begin(0, async () => {}); // a record's callback: it heartbeats
    const parking: PartitionParking = {
      state: emptyParkState(10n),
      records: new Map(),
      heldSince: new Map(),
      turns: createTierTurns(),
      tierHandled: new Map(),
      tierCommitted: new Map(),
      tierRead: new Map(),
      soughtSinceTaken: false,
    };
    await commits.commit(0, parking, [{ topic: MAIN, partition: 0, offset: '10', metadata: parkStateMetadata(parking.state) }]);
    expect(group.get(MAIN)?.offset).toBe('10');
  });
});
