import { decodeHandled, encodeHandled, isHandled, markHandled, unhandledBefore } from '../../src/runtime/dlq-handled';

describe('handled DLQ records in the replay group commit', () => {
  it('moves the committed offset over contiguous handled records and lists the rest', () => {
    const state = markHandled(decodeHandled(10n, null), [10n, 11n, 14n, 15n, 17n]);
    expect(state.committed).toBe(12n);
    expect([...state.beyond].sort()).toEqual([14n, 15n, 17n]);
    expect(encodeHandled(state)).toBe('{"f":"krt-handled/1","r":[["14","15"],["17","17"]]}');
  });

  it('reads back what it wrote', () => {
    const state = markHandled(decodeHandled(0n, null), [3n, 4n, 9n]);
    expect(decodeHandled(state.committed, encodeHandled(state))).toEqual(state);
  });

  it('reads metadata that is missing, foreign or garbage as nothing handled beyond', () => {
    for (const metadata of [null, '', 'consumer-x', '{"f":"other"}', '{"f":"krt-handled/1","r":"nope"}']) {
      expect(decodeHandled(5n, metadata)).toEqual({ committed: 5n, beyond: new Set() });
    }
  });

  it('normalizes metadata that lists the committed offset itself', () => {
    expect(decodeHandled(5n, '{"f":"krt-handled/1","r":[["5","6"],["9","9"]]}')).toEqual({ committed: 7n, beyond: new Set([9n]) });
  });

  it('counts the unhandled records before an end offset without walking them', () => {
    const state = markHandled(decodeHandled(100n, null), [103n, 104n, 2_000_000n]);
    expect(unhandledBefore(state, 1_000_000n)).toEqual({ count: 1_000_000 - 100 - 2, first: 100n });
    expect(unhandledBefore(state, 100n)).toEqual({ count: 0 });
    expect(isHandled(state, 103n)).toBe(true);
    expect(isHandled(state, 102n)).toBe(false);
  });
});
