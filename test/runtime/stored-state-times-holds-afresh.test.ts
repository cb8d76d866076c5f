import { emptyParkState } from '../../src/runtime/park-state';
import { MAIN, parkingCommitsWorld, TIER } from './parking-commits-world';

/*
 * parking-commits.ts sendCommits(): every state of main partition p the broker stores makes the
 * hold clocks forget the holds it no longer has, and only a stored state does. A hold released
 * and stored, then taken again, is timed from then; a hold released in memory only (a tier
 * offset stored meanwhile, the state not) keeps its first time, as a failed operation loads it
 * again from the state still stored (attack 30). (Session 54: line 197's `!==` survived the suites;
 * its `true`, `false` and `() => undefined` fail this too.)
 */

function commitsWorld() {
  const { commits, holdClocks, requests, at } = parkingCommitsWorld();
  // k held at 5 since time 0.
  const state = emptyParkState(10n);
  state.held.set('k', 5n);
  const held = () => holdClocks.firstSeen(0, state, 'k', 5n, undefined);
  expect(held()).toBe(0);
  return { commits, state, held, requests, at };
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
