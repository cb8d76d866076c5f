import { createHoldClocks } from '../../src/runtime/hold-clocks';
import { emptyParkState, keyHash, takeHold } from '../../src/runtime/park-state';
import type { ParkState } from '../../src/runtime/park-state';

const k = keyHash(Buffer.from('k'));

function holding(id: string, offset: bigint, retryId?: string): ParkState {
  const state: ParkState = { ...emptyParkState(10n), id };
  takeHold(state, k, offset, retryId);
  return state;
}

describe('the first-seen times of park-by-key holds', () => {
  it('keeps the time a hold was first seen when the same hold is seen again (a state loaded again after a failed operation)', () => {
    let now = 100;
    const clocks = createHoldClocks(() => now);
    expect(clocks.firstSeen(0, holding('AAAAAAAA', 3n), k, 3n, undefined)).toBe(100);
    now = 500;
    expect(clocks.firstSeen(0, holding('AAAAAAAA', 3n), k, 3n, undefined)).toBe(100);
  });

  it('tells holds apart by state id, offset, retry id and partition: each of those is another hold, seen now', () => {
    let now = 100;
    const clocks = createHoldClocks(() => now);
    clocks.firstSeen(0, holding('AAAAAAAA', 3n), k, 3n, undefined);
    now = 500;
    expect(clocks.firstSeen(0, holding('BBBBBBBB', 3n), k, 3n, undefined)).toBe(500);
    expect(clocks.firstSeen(0, holding('AAAAAAAA', 4n), k, 4n, undefined)).toBe(500);
    expect(clocks.firstSeen(0, holding('AAAAAAAA', 3n, 'rrrrrr'), k, 3n, 'rrrrrr')).toBe(500);
    expect(clocks.firstSeen(1, holding('AAAAAAAA', 3n), k, 3n, undefined)).toBe(500);
  });

  it('forgets a hold once a stored state no longer has it, and keeps one it still has', () => {
    let now = 100;
    const clocks = createHoldClocks(() => now);
    const state = holding('AAAAAAAA', 3n);
    clocks.firstSeen(0, state, k, 3n, undefined);
    now = 200;
    clocks.stored(0, state);
    expect(clocks.firstSeen(0, state, k, 3n, undefined)).toBe(100);
    clocks.stored(0, { ...emptyParkState(10n), id: 'AAAAAAAA' });
    expect(clocks.firstSeen(0, state, k, 3n, undefined)).toBe(200);
  });

  it('forgets one partition\'s holds (a state begun anew) or every partition\'s (a rebalance)', () => {
    let now = 100;
    const clocks = createHoldClocks(() => now);
    const state = holding('AAAAAAAA', 3n);
    clocks.firstSeen(0, state, k, 3n, undefined);
    clocks.firstSeen(1, state, k, 3n, undefined);
    now = 300;
    clocks.forget(0);
    expect(clocks.firstSeen(0, state, k, 3n, undefined)).toBe(300);
    expect(clocks.firstSeen(1, state, k, 3n, undefined)).toBe(100);
    now = 400;
    clocks.forget();
    expect(clocks.firstSeen(1, state, k, 3n, undefined)).toBe(400);
  });
});
