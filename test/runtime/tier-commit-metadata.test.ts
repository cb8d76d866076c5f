import fc from 'fast-check';
import { decodeTierCommit, encodeTierCommit, fitTierCommit } from '../../src/runtime/tier-commit-metadata';
import type { TierCommitFields } from '../../src/runtime/tier-commit-metadata';

/** The records of a tier partition committed at `offset` that a re-read skips as done: past the commit (or at it, marked done), below the position, not waiting. */
function skipped(offset: bigint, fields: TierCommitFields, upTo: bigint): bigint[] {
  const out: bigint[] = [];
  for (let o = fields.firstDone === true ? offset : offset + 1n; o < upTo; o++) if (fields.handledBelow !== undefined && o < fields.handledBelow && !fields.waiting.includes(o)) out.push(o);
  return out;
}

const fieldsAt = fc
  .record({
    offset: fc.bigInt({ min: 0n, max: 100_000n }),
    handled: fc.option(fc.bigInt({ min: 0n, max: 300n })),
    waiting: fc.uniqueArray(fc.bigInt({ min: 1n, max: 299n }), { maxLength: 40 }),
    id: fc.option(fc.constant('AbC-_123')),
    firstDone: fc.boolean(),
  })
  .map(({ offset, handled, waiting, id, firstDone }) => {
    const handledBelow = handled === null ? undefined : offset + handled;
    const fields: TierCommitFields = {
      ...(id === null ? {} : { id, mainCommitted: 77n }),
      ...(handledBelow === undefined ? {} : { handledBelow, firstTimestamp: 1_764_000_000_000n + offset, ...(firstDone ? { firstDone } : {}) }),
      waiting: waiting.map((w) => offset + w).filter((w) => handledBelow !== undefined && w < handledBelow),
    };
    return { offset, fields };
  });

describe('what a park-by-key tier commit keeps beside its offset', () => {
  it('writes the id and main commit, the handled position and the waiting records as distances past the offset, the first record\'s timestamp, an end token and a NUL', () => {
    expect(encodeTierCommit(100n, { id: 'AbC-_123', mainCommitted: 1_000n, handledBelow: 150n, waiting: [110n, 136n], firstTimestamp: 36n })).toBe('krt-park-tier/1 !AbC-_123 +rs >1e:a,10 ^10 .\0');
    expect(encodeTierCommit(100n, { handledBelow: 101n, waiting: [], firstTimestamp: 5n })).toBeUndefined(); // nothing past the commit's own record
    // Anchored on the last record done: the record at the offset is done too.
    expect(encodeTierCommit(100n, { handledBelow: 150n, waiting: [], firstTimestamp: 36n, firstDone: true })).toBe('krt-park-tier/1 >1e ^10* .\0');
    expect(decodeTierCommit(100n, 'krt-park-tier/1 >1e ^10* .\0')).toEqual({ handledBelow: 150n, waiting: [], firstTimestamp: 36n, firstDone: true });
    expect(encodeTierCommit(100n, { handledBelow: 150n, waiting: [] })).toBeUndefined(); // no record at the offset to tell this log by
    expect(encodeTierCommit(100n, { waiting: [] })).toBeUndefined();
  });

  it('reads back what it writes, at the same offset (property)', () => {
    fc.assert(
      fc.property(fieldsAt, ({ offset, fields }) => {
        const read = decodeTierCommit(offset, encodeTierCommit(offset, fields));
        expect(skipped(offset, read, offset + 301n)).toEqual(skipped(offset, fields, offset + 301n));
        expect(read.id).toBe(fields.id);
        if (skipped(offset, fields, offset + 301n).length > 0) expect(read.firstTimestamp).toBe(fields.firstTimestamp);
        if (read.handledBelow !== undefined) expect(read.firstDone === true).toBe(fields.firstDone === true);
      }),
      { numRuns: 1_000 },
    );
  });

  it('reads a commit cut short or extended by a byte as keeping nothing, never as another position (property)', () => {
    fc.assert(
      fc.property(fieldsAt, fc.constantFrom('0', 'z', ',', ' ', 'x'), ({ offset, fields }, extra) => {
        const text = encodeTierCommit(offset, fields)?.replace(/\0$/, '');
        if (text === undefined) return;
        for (let cut = 0; cut < text.length - 1; cut++) {
          const read = decodeTierCommit(offset, text.slice(0, cut));
          expect(read.handledBelow === undefined && read.id === undefined).toBe(true);
        }
        const extended = decodeTierCommit(offset, text + extra);
        expect(extended.handledBelow === undefined && extended.id === undefined).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('reads nothing from metadata that is none of ours: an offset reset leaves none, another writer its own', () => {
    for (const metadata of [null, undefined, '', 'krt-parked/2 +0 .', 'krt-park-tier/1 >5 .', 'krt-park-tier/1 >5:1 ^a .x', 'krt-park-tier/1 >5 ^a** .', 'krt-park-tier/1 >5 *^a .', 'krt-park-tier/2 >5 ^a .', 'hello']) {
      expect(decodeTierCommit(10n, metadata)).toEqual({ waiting: [] });
    }
    expect(decodeTierCommit(10n, 'krt-park-id/1 !AbC-_123 +rs .')).toEqual({ id: 'AbC-_123', mainCommitted: 1_000n, waiting: [] });
  });

  it('fitted to a budget, skips only records the full commit skips, keeps the id, and fits when the id alone fits (property)', () => {
    fc.assert(
      fc.property(fieldsAt, fc.integer({ min: 10, max: 200 }), ({ offset, fields }, budget) => {
        const text = fitTierCommit(offset, fields, budget);
        const read = decodeTierCommit(offset, text);
        const full = new Set(skipped(offset, fields, offset + 301n));
        for (const o of skipped(offset, read, offset + 301n)) expect(full.has(o)).toBe(true);
        expect(read.id).toBe(fields.id);
        const idAlone = encodeTierCommit(offset, { ...(fields.id === undefined ? {} : { id: fields.id, mainCommitted: fields.mainCommitted! }), waiting: [] });
        if (Buffer.byteLength(idAlone ?? '') <= budget) expect(Buffer.byteLength(text ?? '')).toBeLessThanOrEqual(budget);
      }),
      { numRuns: 500 },
    );
  });
});
