import { emptyParkState, markRanUnjudged, parkStateMetadata } from '../../src/runtime/park-state';
import type { ParkState } from '../../src/runtime/park-state';
import { MAIN, parkingCommitsWorld, TIER } from './parking-commits-world';

/*
 * parking-commits.ts commitState(): a state of main partition p refused as too large with the
 * tier runs it records goes again at once without them (they cost order only, attack 19), and
 * only then: any other refusal, a state that records no runs, or tier offsets sent alone are not
 * sent again, and keep the runs. (Session 54: line 172's
 * test for a state in the request made `true` survived the suites; the other mutants of lines
 * 172-174 that the suites kill fail this too.)
 */

const tooLarge = () => Object.assign(new Error('The metadata field of the offset request was too large'), { type: 'OFFSET_METADATA_TOO_LARGE' });

/** A state holding k at 5, with `runs` tier runs recorded (each about 20 bytes of metadata). */
function stateWith(runs: number): ParkState {
  const state = emptyParkState(10n);
  state.held.set('k', 5n);
  for (let i = 0; i < runs; i++) markRanUnjudged(state, `run-${i}-of-a-replayed-record`, { tier: 0, offset: BigInt(100 + i) });
  return state;
}

/** The broker refuses a commit whose metadata is over `limit` bytes as too large (or every commit with `refuseAll`). */
function commitsWorld(limit: number, refuseAll?: Error) {
  const { commits, requests } = parkingCommitsWorld({ refusal: (offsets) => refuseAll ?? (offsets.some((o) => Buffer.byteLength(o.metadata ?? '') > limit) ? tooLarge() : undefined) });
  const send = (state: ParkState, topic = MAIN) => commits.commitState(0, state, [{ topic, partition: 0, offset: '10', metadata: parkStateMetadata(state) }]);
  return { send, requests };
}

describe('a state refused as too large with the tier runs it records', () => {
  it('goes again at once without them, and is stored so', async () => {
    const state = stateWith(8);
    const without = parkStateMetadata(stateWith(0));
    const w = commitsWorld(Buffer.byteLength(without));
    await w.send(state);
    expect(w.requests).toHaveLength(2);
    expect(w.requests[1]).toEqual([{ topic: MAIN, partition: 0, offset: '10', metadata: without }]);
    expect(state.ranUnjudged).toBeUndefined();
  });

  it('is not sent again when refused for another reason, and keeps its runs', async () => {
    const state = stateWith(8);
    const w = commitsWorld(Number.MAX_SAFE_INTEGER, new Error('The coordinator is not available'));
    await expect(w.send(state)).rejects.toThrow('not available');
    expect(w.requests).toHaveLength(1);
    expect(state.ranUnjudged?.size).toBe(8);
  });
});

describe('a state refused as too large that records no runs', () => {
  it('is not sent again', async () => {
    const w = commitsWorld(5);
    await expect(w.send(stateWith(0))).rejects.toThrow('too large');
    expect(w.requests).toHaveLength(1);
  });
});

describe('a tier offset sent alone and refused as too large', () => {
  it('is not sent again, and the state keeps its runs', async () => {
    const state = stateWith(8);
    const w = commitsWorld(5);
    await expect(w.send(state, TIER)).rejects.toThrow('too large');
    expect(w.requests).toHaveLength(1);
    expect(state.ranUnjudged?.size).toBe(8);
  });
});
