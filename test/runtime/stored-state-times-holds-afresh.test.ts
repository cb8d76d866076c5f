import { createHoldClocks } from '../../src/runtime/hold-clocks';
import { emptyParkState } from '../../src/runtime/park-state';
import { ParkingBudget } from '../../src/runtime/parking-budget';
import { createParkingCommits } from '../../src/runtime/parking-commits';
import { createParkingPatience } from '../../src/runtime/parking-patience';
import type { ConsumerPort, OffsetCommit } from '../../src/runtime/port';

/*
 * parking-commits.ts sendCommits(): every state of main partition p the broker stores makes the
 * hold clocks forget the holds it no longer has, and only a stored state does. A hold released
 * and stored, then taken again, is timed from then; a hold released in memory only (a tier
 * offset stored meanwhile, the state not) keeps its first time, as a failed operation loads it
 * again from the state still stored (attack 30). (Session 54: line 197's `!==` survived the suites;
 * its `true`, `false` and `() => undefined` fail this too.)
 */
const MAIN = 'orders';
const TIER = 'orders-retry-1m';

function commitsWorld() {
  let now = 0;
  const requests: OffsetCommit[][] = [];
  const consumer = { commitOffsets: async (offsets: OffsetCommit[]) => void requests.push(offsets) } as unknown as ConsumerPort;
  const holdClocks = createHoldClocks(() => now);
  const commits = createParkingCommits({
    mainTopic: MAIN,
    tierTopics: [TIER],
    consumer: () => consumer,
    budget: new ParkingBudget(4096, MAIN, () => {}),
    patience: createParkingPatience({ mainTopic: MAIN, consumer: () => consumer, now: () => now, setTimer: () => () => {}, emit: () => {} }),
    holdClocks,
    isCurrent: () => true,
  });
  // k held at 5 since time 0.
  const state = emptyParkState(10n);
  state.held.set('k', 5n);
  const held = () => holdClocks.firstSeen(0, state, 'k', 5n, undefined);
  expect(held()).toBe(0);
  return { commits, state, held, requests, at: (ms: number) => void (now = ms) };
}

describe('a hold released and taken again', () => {
  it('is timed from when it is taken again, once a state without it was stored', async () => {
    const w = commitsWorld();
    w.at(10);
    w.state.held.delete('k');
    await w.commits.commitState(0, w.state, [{ topic: MAIN, partition: 0, offset: '10', metadata: 'state' }]);
    w.at(20);
    w.state.held.set('k', 5n);
    expect(w.held()).toBe(20);
  });

  it('keeps its first time when only a tier offset was stored meanwhile (the state that holds it is still the one stored)', async () => {
    const w = commitsWorld();
    w.at(10);
    w.state.held.delete('k');
    await w.commits.commitState(0, w.state, [{ topic: TIER, partition: 0, offset: '3' }]);
    expect(w.requests).toEqual([[{ topic: TIER, partition: 0, offset: '3' }]]);
    w.at(20);
    w.state.held.set('k', 5n); // loaded again from the stored state, after a failed operation
    expect(w.held()).toBe(0);
  });
});
