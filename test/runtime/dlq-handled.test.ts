import fc from 'fast-check';
import {
  committedByPartition,
  decodeHandled,
  emptyHandled,
  encodeHandled,
  expiredGap,
  handledFits,
  handledRanges,
  keepsHandled,
  isHandled,
  markHandled,
  partitionBacklog,
  passExpired,
  rangeCount,
  unionHandled,
} from '../../src/runtime/dlq-handled';

const offsets = (from: number, to: number, step = 1) => Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => BigInt(from + i * step));

describe('handled DLQ records in the replay group commit', () => {
  it('moves the committed offset over contiguous handled records and keeps the rest as ranges', () => {
    const state = markHandled(emptyHandled(10n), [10n, 11n, 14n, 15n, 17n]);
    expect(state.committed).toBe(12n);
    expect(handledRanges(state)).toEqual([{ from: 14n, to: 15n }, { from: 17n, to: 17n }]);
  });

  it('reads back what it wrote, whatever the offsets (checked against a plain set)', () => {
    fc.assert(
      fc.property(fc.nat(50), fc.array(fc.array(fc.nat(200), { maxLength: 30 }), { maxLength: 5 }), (start, batches) => {
        let state = emptyHandled(BigInt(start));
        const model = new Set<number>();
        for (const batch of batches) {
          const next = markHandled(state, batch.map(BigInt));
          state = decodeHandled(next.committed, encodeHandled(next));
          for (const o of batch) model.add(o);
        }
        for (let o = 0; o <= 260; o++) expect(isHandled(state, BigInt(o))).toBe(o < start || model.has(o));
      }),
    );
  });

  it('still reads the ranges of the first metadata format', () => {
    const state = decodeHandled(5n, '{"f":"krt-handled/1","r":[["5","6"],["9","9"]]}');
    expect({ committed: state.committed, ranges: handledRanges(state), expired: state.expired }).toEqual({ committed: 7n, ranges: [{ from: 9n, to: 9n }], expired: 0n });
  });

  it('reads metadata that is missing, foreign or garbage as nothing handled beyond', () => {
    for (const metadata of [null, '', 'consumer-x', '{"f":"other"}', '{"f":"krt-handled/1","r":"nope"}', '{"f":"krt-handled/2","r":"!!!"}']) {
      expect(decodeHandled(5n, metadata)).toEqual(emptyHandled(5n));
    }
  });

  it('counts the unhandled records before an end offset without walking them', () => {
    const state = markHandled(emptyHandled(100n), [103n, 104n, 2_000_000n]);
    expect(partitionBacklog(state, 0n, 1_000_000n)).toEqual({ unhandled: 1_000_000 - 100 - 2, first: 100n, expired: 0 });
    expect(partitionBacklog(state, 0n, 100n)).toEqual({ unhandled: 0, expired: 0 });
  });

  it('costs one range for two million handled offsets, read and counted at once', () => {
    const state = decodeHandled(0n, '{"f":"krt-handled/1","r":[["1","2000000"]]}');
    const backlog = partitionBacklog(state, 0n, 2_000_100n);
    expect({ ranges: rangeCount(state), backlog }).toEqual({ ranges: 1, backlog: { unhandled: 100, first: 0n, expired: 0 } });
  });

  // How long this takes is measured by hand and reported in docs/benchmarks.md (38 ms), not
  // asserted here: a timed test fails on a loaded machine and proves nothing on a quiet one.
  it('decodes a million handled ranges (every other offset of 2,000,000) and counts the backlog exactly', () => {
    const everyOther = markHandled(emptyHandled(0n), offsets(1, 1_999_999, 2));
    const metadata = encodeHandled(everyOther);
    expect(handledFits(everyOther).fits).toBe(true);
    const state = decodeHandled(0n, metadata);
    const backlog = partitionBacklog(state, 0n, 2_000_000n);
    expect({ ranges: rangeCount(state), unhandled: backlog.unhandled }).toEqual({ ranges: 1_000_000, unhandled: 1_000_000 });
  });

  it('keeps a handled range farther than 2^53 from the committed offset exactly, through mark, encode, decode and union, with the near ones', () => {
    const far = 2n ** 53n + 100n;
    const state = markHandled(emptyHandled(0n), [5n, 6n, far, far + 1n]);
    const back = decodeHandled(0n, encodeHandled(state));
    const handled = (s: typeof back) => [4n, 5n, 6n, 7n, far - 1n, far, far + 1n, far + 2n].filter((o) => isHandled(s, o));
    expect(handled(back)).toEqual([5n, 6n, far, far + 1n]);
    const union = unionHandled(back, markHandled(emptyHandled(0n), [0n, 1n, 2n, 3n, 4n]));
    expect({ committed: union.committed, handled: handled(union) }).toEqual({ committed: 7n, handled: [4n, 5n, 6n, far, far + 1n] });
    const farAway = unionHandled(emptyHandled(0n), markHandled(emptyHandled(far), [far + 5n]));
    expect([0n, far - 1n, far, far + 5n].filter((o) => isHandled(farAway, o))).toEqual([0n, far - 1n, far + 5n]);
  });

  it('keeps, in a union of two states, every offset either marks handled', () => {
    fc.assert(
      fc.property(fc.nat(40), fc.array(fc.nat(120)), fc.nat(40), fc.array(fc.nat(120)), (startA, a, startB, b) => {
        const stateA = markHandled(emptyHandled(BigInt(startA)), a.map(BigInt));
        const stateB = markHandled(emptyHandled(BigInt(startB)), b.map(BigInt));
        const union = unionHandled(stateA, stateB);
        for (let o = 0; o <= 130; o++) expect(isHandled(union, BigInt(o))).toBe(isHandled(stateA, BigInt(o)) || isHandled(stateB, BigInt(o)));
        expect(keepsHandled(stateA, union) && keepsHandled(stateB, union)).toBe(true);
        expect(keepsHandled(stateA, stateB)).toBe([...Array(131).keys()].every((o) => !isHandled(stateA, BigInt(o)) || isHandled(stateB, BigInt(o))));
      }),
    );
  });

  it('fits one error class out of 100,000 records of four interleaved classes into one commit', () => {
    const state = markHandled(emptyHandled(0n), offsets(0, 99_999, 4));
    expect(rangeCount(state)).toBe(24_999);
    expect(handledFits(state).fits).toBe(true);
    expect(decodeHandled(state.committed, encodeHandled(state))).toEqual(state);
  });

  it('says when scattered handled records cannot fit into one commit', () => {
    let seed = 42;
    // xorshift32: a fixed, patternless choice of one record in three.
    const random = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 2 ** 32;
    };
    const scattered = offsets(0, 99_999).filter(() => random() < 1 / 3);
    expect(handledFits(markHandled(emptyHandled(0n), scattered)).fits).toBe(false);
  });
});

describe('DLQ records that retention deleted before anyone handled them', () => {
  const state = markHandled(emptyHandled(10n), [12n, 13n, 30n]);

  it('counts the unhandled records below the log start, not the handled ones', () => {
    expect(expiredGap(state, 20n)).toBe(10n - 2n);
    expect(expiredGap(state, 5n)).toBe(0n);
  });

  it('passes the gap: the committed offset reaches the log start and the count is kept in the metadata', () => {
    const passed = passExpired(state, 20n);
    expect({ committed: passed.committed, ranges: handledRanges(passed), expired: passed.expired }).toEqual({ committed: 20n, ranges: [{ from: 30n, to: 30n }], expired: 8n });
    expect(decodeHandled(passed.committed, encodeHandled(passed))).toEqual(passed);
  });

  it('reports the same expired total before and after the gap is passed', () => {
    expect(partitionBacklog(state, 20n, 40n)).toEqual({ unhandled: 19, first: 20n, expired: 8 });
    expect(partitionBacklog(passExpired(state, 20n), 20n, 40n)).toEqual({ unhandled: 19, first: 20n, expired: 8 });
  });

  it('has nothing left on a partition retention emptied', () => {
    expect(partitionBacklog(state, 40n, 40n)).toEqual({ unhandled: 0, expired: 10 + 17 });
  });
});

describe("the replay group's commits by partition", () => {
  it('leaves out a partition kafkajs gives without a commit (offset -1), and keeps offset 0 and its metadata', () => {
    const commits = committedByPartition([
      { partition: 0, offset: '-1', metadata: null },
      { partition: 1, offset: '0', metadata: 'x' },
      { partition: 2, offset: '12', metadata: null },
    ]);
    expect([...commits.keys()]).toEqual([1, 2]);
    expect(commits.get(1)?.metadata).toBe('x');
  });
});
