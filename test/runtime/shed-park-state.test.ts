import fc from 'fast-check';
import { committedOffsetOf, emptyParkState, keyHash, parkStateMetadata } from '../../src/runtime/park-state';
import type { ParkState } from '../../src/runtime/park-state';
import { shedToFit } from '../../src/runtime/shed-park-state';

const bytesOf = (state: ParkState) => Buffer.byteLength(parkStateMetadata(state));
const hashes = Array.from({ length: 12 }, (_, i) => keyHash(Buffer.from(`key-${i}`)));

/** States the runtime could store: holds and parked records below the position, an id, maybe a lost mark and a shed's. */
const storedState = fc
  .record({
    position: fc.bigInt({ min: 1n, max: 5_000n }),
    holds: fc.uniqueArray(fc.tuple(fc.constantFrom(...hashes), fc.double({ min: 0, max: 0.999, noNaN: true })), { selector: ([h]) => h, maxLength: 10 }),
    parked: fc.array(fc.tuple(fc.double({ min: 0, max: 0.999, noNaN: true }), fc.constantFrom(...hashes)), { maxLength: 10 }),
    lost: fc.option(fc.double({ min: 0, max: 1, noNaN: true })),
    shed: fc.option(fc.double({ min: 0, max: 1, noNaN: true })),
    id: fc.option(fc.constant('AbCd-_12')),
  })
  .map(({ position, holds, parked, lost, shed, id }) => {
    const at = (fraction: number) => BigInt(Math.floor(fraction * Number(position)));
    const state = emptyParkState(position);
    for (const [hash, fraction] of holds) state.held.set(hash, at(fraction));
    for (const [fraction, hash] of parked) state.parked.set(at(fraction), hash);
    if (lost !== null) state.lostBefore = at(lost);
    if (shed !== null) state.shedBefore = at(shed);
    if (id !== null) state.id = id;
    return state;
  });

describe('a park-by-key state shed to a budget the broker keeps', () => {
  it('is left as it is when it fits', () => {
    const state = emptyParkState(10n);
    state.held.set(hashes[0]!, 3n);
    expect(shedToFit(state, bytesOf(state))).toBeUndefined();
  });

  it('is left as it is when it holds and parks nothing, whatever the budget: only its id can go, and that is fitId\'s', () => {
    const state: ParkState = { ...emptyParkState(10n), lostBefore: 4n, id: 'AbCd-_12' };
    expect(shedToFit(state, 5)).toBeUndefined();
  });

  it('moves back to its oldest parked record and keeps the oldest holds below it that fit', () => {
    const state = emptyParkState(100n);
    state.held.set(hashes[0]!, 10n);
    state.held.set(hashes[1]!, 20n);
    state.held.set(hashes[2]!, 60n); // at or past the oldest parked record: its record runs again
    state.parked.set(50n, hashes[0]!);
    state.parked.set(70n, hashes[1]!);
    const oneHold: ParkState = { ...emptyParkState(50n), held: new Map([[hashes[0]!, 10n]]), shedBefore: 21n };
    const shed = shedToFit(state, bytesOf(oneHold))!;
    expect(shed.state.position).toBe(50n);
    expect(shed.state.parked.size).toBe(0);
    expect([...shed.state.held]).toEqual([[hashes[0], 10n]]);
    expect(shed.state.shedBefore).toBe(21n); // past the hold it gave up (20), so that record's retry runs
    expect(shed.state.lostBefore).toBeUndefined(); // the hold kept (10) still judges its key's copies
    expect(shed.holdsDropped).toBe(2);
    expect(shed.rerunTo).toBe(100n);
  });

  it('fits the budget whenever the empty state with its mark does, loses no record and never holds a key it did not hold (property)', () => {
    fc.assert(
      fc.property(storedState, fc.integer({ min: 16, max: 400 }), (stored, budget) => {
        const shed = shedToFit(stored, budget);
        if (shed === undefined) {
          expect(bytesOf(stored) <= budget || (stored.held.size === 0 && stored.parked.size === 0)).toBe(true);
          return;
        }
        const { state } = shed;
        // Every record not yet handled is read again: from the oldest parked one, none parked.
        expect(state.position).toBe(committedOffsetOf(stored));
        expect(state.parked.size).toBe(0);
        expect(shed.rerunTo).toBe(stored.position);
        // The id goes only where that keeps more holds (as fitId rules).
        expect(state.id === stored.id || state.id === undefined).toBe(true);
        // Holds kept are the stored ones, below the new position.
        for (const [hash, offset] of state.held) {
          expect(stored.held.get(hash)).toBe(offset);
          expect(offset < state.position).toBe(true);
        }
        // A hold given up below the position is marked, so its tier copy runs rather than be skipped as stale.
        const below = (mark: bigint | undefined, offset: bigint) => mark !== undefined && offset < mark;
        for (const [hash, offset] of stored.held) {
          if (state.held.has(hash) || offset >= state.position) continue;
          expect(below(state.lostBefore, offset) || below(state.shedBefore, offset)).toBe(true);
        }
        // Every hold kept is below the shed's mark, so it judges its key's copies from there (tier-copy-judgement.ts unproven).
        const droppedBelow = [...stored.held].some(([hash, offset]) => !state.held.has(hash) && offset < state.position);
        if (droppedBelow) for (const offset of state.held.values()) expect(below(state.shedBefore, offset)).toBe(true);
        expect(state.lostBefore === undefined || state.lostBefore <= state.position).toBe(true);
        expect(state.shedBefore === undefined || state.shedBefore <= state.position).toBe(true);
        if (stored.lostBefore !== undefined) expect(state.lostBefore! >= (stored.lostBefore < state.position ? stored.lostBefore : state.position)).toBe(true);
        expect(shed.holdsDropped).toBe(stored.held.size - state.held.size);
        const emptyWithMark: ParkState = {
          ...emptyParkState(state.position),
          ...(state.lostBefore === undefined ? {} : { lostBefore: state.lostBefore }),
          ...(state.shedBefore === undefined ? {} : { shedBefore: state.shedBefore }),
          ...(state.id === undefined ? {} : { id: state.id }),
        };
        if (state.id === undefined && stored.id !== undefined) expect(state.held.size).toBeGreaterThan(0); // the id went for a hold
        if (bytesOf(emptyWithMark) <= budget) expect(bytesOf(state)).toBeLessThanOrEqual(budget);
      }),
      { numRuns: 3_000 },
    );
  });
});
