import type { RetryEvent } from '../../src/runtime/events';
import { BUDGET_RETRY_AFTER_COMMITS, heldBytes, ParkingBudget } from '../../src/runtime/parking-budget';
import { emptyParkState, keyHash, markRanUnjudged, parkStateMetadata } from '../../src/runtime/park-state';
import type { ParkState } from '../../src/runtime/park-state';

/** The broker's answer to metadata over offset.metadata.max.bytes. */
const metadataTooLarge = () => Object.assign(new Error('Offset metadata too large'), { type: 'OFFSET_METADATA_TOO_LARGE' });

function budgetOf(bytes: number) {
  const events: RetryEvent[] = [];
  return { budget: new ParkingBudget(bytes, 'orders', (e) => events.push(e)), events };
}

const holding = (position: bigint): ParkState => ({ ...emptyParkState(position), held: new Map([[keyHash(Buffer.from('a')), position - 1n]]) });

describe('the parking budget of a main partition', () => {
  it('lets a key be held beside others however small the budget (the check before the record bounds it), but an empty state only when the broker keeps that one hold', () => {
    const { budget } = budgetOf(10);
    expect(budget.holdFits(holding(100n), keyHash(Buffer.from('b')), 99n)).toBe(true);
    expect(budget.holdFits(emptyParkState(100n), keyHash(Buffer.from('b')), 99n)).toBe(false);
    const exact = heldBytes(emptyParkState(100n), keyHash(Buffer.from('b')), 99n);
    expect(budgetOf(exact).budget.holdFits(emptyParkState(100n), keyHash(Buffer.from('b')), 99n)).toBe(true);
  });

  describe('room for a run the state names (roomForRun)', () => {
    const named = (state: ParkState): ParkState => {
      const withName: ParkState = { ...state, ranUnjudged: new Map(state.ranUnjudged) };
      markRanUnjudged(withName, 'abcdef', { tier: 0, offset: 7n });
      return withName;
    };
    const b = keyHash(Buffer.from('b'));
    const bytesWithName = Buffer.byteLength(parkStateMetadata(named(holding(100n))));

    it('is room when the state keeps the name within the budget, names counted', () => {
      expect(budgetOf(bytesWithName).budget.roomForRun(holding(100n), named(holding(100n)), b, undefined, undefined, true)).toBe('room');
    });

    it('waits one byte short of it while a release may make room, and runs (the name to be dropped) when none can come', () => {
      const { budget } = budgetOf(bytesWithName - 1);
      expect(budget.roomForRun(holding(100n), named(holding(100n)), b, undefined, undefined, true)).toBe('wait');
      expect(budget.roomForRun(holding(100n), named(holding(100n)), b, undefined, undefined, false)).toBe('room');
    });

    it('counts the hold the record may take beside its name, and says what roomForHold says when the hold alone has no room', () => {
      const withHoldAndName = Buffer.byteLength(parkStateMetadata({ ...named(holding(100n)), held: new Map([...holding(100n).held, [b, 50n]]) }));
      expect(budgetOf(withHoldAndName).budget.roomForRun(holding(100n), named(holding(100n)), b, 50n, undefined, true)).toBe('room');
      expect(budgetOf(withHoldAndName - 1).budget.roomForRun(holding(100n), named(holding(100n)), b, 50n, undefined, true)).toBe('wait');
      expect(budgetOf(10).budget.roomForRun(holding(100n), named(holding(100n)), b, 50n, undefined, false)).toBe('none');
    });

    it('never waits in a state that holds and parks nothing: no release can come to it', () => {
      expect(budgetOf(10).budget.roomForRun(emptyParkState(100n), named(emptyParkState(100n)), b, undefined, undefined, true)).toBe('room');
    });
  });

  it('comes down under a refused commit, and never goes up on a refusal of more than it allows already', () => {
    const { budget, events } = budgetOf(4_096);
    budget.commitRefused(metadataTooLarge(), 300, holding(100n), 0);
    expect(budget.bytes).toBe(299);
    budget.commitRefused(metadataTooLarge(), 1_000, holding(100n), 0);
    budget.commitRefused(metadataTooLarge(), 300, holding(100n), 0); // the same refusal again: already under it
    expect(budget.bytes).toBe(299);
    expect(events.map((e) => e.type)).toEqual(['parking-budget-lowered']);
  });

  it('tries the configured budget again after exactly BUDGET_RETRY_AFTER_COMMITS accepted commits with metadata, and never raises one that was not lowered', () => {
    const { budget, events } = budgetOf(4_096);
    for (let i = 0; i < BUDGET_RETRY_AFTER_COMMITS * 2; i++) budget.commitAccepted(100);
    expect(events).toEqual([]);
    budget.commitRefused(metadataTooLarge(), 300, holding(100n), 0);
    for (let i = 0; i < BUDGET_RETRY_AFTER_COMMITS * 2; i++) budget.commitAccepted(0); // commits without metadata say nothing of the limit
    for (let i = 0; i < BUDGET_RETRY_AFTER_COMMITS - 1; i++) budget.commitAccepted(100);
    expect(budget.bytes).toBe(299);
    budget.commitAccepted(100);
    expect(budget.bytes).toBe(4_096);
    expect(events.map((e) => e.type)).toEqual(['parking-budget-lowered', 'parking-budget-raised']);
  });

  it('moves an empty state\'s lost mark up to its position only when the state is over the budget, not when it fits exactly', () => {
    const state: ParkState = { ...emptyParkState(5_000n), lostBefore: 10n };
    const fits = Buffer.byteLength(parkStateMetadata(state));
    budgetOf(fits).budget.fitMark(state);
    expect(state.lostBefore).toBe(10n);
    budgetOf(fits - 1).budget.fitMark(state);
    expect(state.lostBefore).toBe(5_000n);
  });

  it('keeps the lost mark of a state that holds a key, however far over the budget', () => {
    const state: ParkState = { ...holding(5_000n), lostBefore: 10n };
    budgetOf(1).budget.fitMark(state);
    expect(state.lostBefore).toBe(10n);
  });
});
