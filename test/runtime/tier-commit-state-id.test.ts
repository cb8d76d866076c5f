import { encodeTierCommit } from '../../src/runtime/tier-commit-metadata';
import { agreedStateId } from '../../src/runtime/tier-commit-state-id';

const tierCommitMetadata = (id: string | undefined, mainCommitted: bigint) => encodeTierCommit(3n, { ...(id === undefined ? {} : { id }), mainCommitted, waiting: [] });

describe('the park-by-key state id kept in the tiers\' commits', () => {
  it('writes the id and the main commit (base 36) with its format tag, an end token and a NUL, and nothing without an id', () => {
    expect(tierCommitMetadata('AbC-_123', 1_000n)).toBe('krt-park-tier/1 !AbC-_123 +rs .\0');
    expect(tierCommitMetadata(undefined, 5n)).toBeUndefined();
  });

  it('takes back the id every tier commit names, with the latest main commit they name, read with or without the NUL, in the format of earlier releases too', () => {
    expect(agreedStateId([tierCommitMetadata('AbC-_123', 7n), 'krt-park-id/1 !AbC-_123 +rs .'])).toEqual({ id: 'AbC-_123', committed: 1_000n });
  });

  it('takes back none when a commit names none (an earlier release, an offset reset), two differ, or there is no commit', () => {
    expect(agreedStateId([tierCommitMetadata('AbC-_123', 0n), ''])).toBeUndefined();
    expect(agreedStateId([tierCommitMetadata('AbC-_123', 0n), null])).toBeUndefined();
    expect(agreedStateId([tierCommitMetadata('AbC-_123', 0n), tierCommitMetadata('zzzzzzzz', 0n)])).toBeUndefined();
    expect(agreedStateId([])).toBeUndefined();
  });

  it('reads nothing but what it writes: a byte after it, an id cut short, no main commit, another tag', () => {
    for (const metadata of ['krt-park-tier/1 !AbC-_123 +0 .0', 'krt-park-tier/1 !AbC-_123 +0 >5 .x', 'krt-park-tier/1 !AbC-_123 +0 >5', 'krt-park-id/1 !AbC-_123 +0 .0', 'krt-park-id/1 !AbC-_12 +0 .', 'krt-park-id/1 !AbC-_123 .', 'krt-park-id/2 !AbC-_123 +0 .', 'krt-park-id/1 !AbC-_123 +0', 'krt-parked/2 +0 !AbC-_123 .']) {
      expect(agreedStateId([metadata])).toBeUndefined();
    }
  });
});
