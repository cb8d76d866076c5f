import { agreedStateId, tierCommitMetadata } from '../../src/runtime/tier-commit-state-id';

describe('the park-by-key state id kept in the tiers\' commits', () => {
  it('writes the id with its format tag, an end token and a NUL, and nothing without an id', () => {
    expect(tierCommitMetadata('AbC-_123')).toBe('krt-park-id/1 !AbC-_123 .\0');
    expect(tierCommitMetadata(undefined)).toBeUndefined();
  });

  it('takes back the id every tier commit names, read with or without the NUL', () => {
    expect(agreedStateId([tierCommitMetadata('AbC-_123'), 'krt-park-id/1 !AbC-_123 .'])).toBe('AbC-_123');
  });

  it('takes back none when a commit names none (an earlier release, an offset reset), two differ, or there is no commit', () => {
    expect(agreedStateId([tierCommitMetadata('AbC-_123'), ''])).toBeUndefined();
    expect(agreedStateId([tierCommitMetadata('AbC-_123'), null])).toBeUndefined();
    expect(agreedStateId([tierCommitMetadata('AbC-_123'), tierCommitMetadata('zzzzzzzz')])).toBeUndefined();
    expect(agreedStateId([])).toBeUndefined();
  });

  it('reads nothing but what it writes: a byte after it, an id cut short, another tag', () => {
    for (const metadata of ['krt-park-id/1 !AbC-_123 .0', 'krt-park-id/1 !AbC-_12 .', 'krt-park-id/2 !AbC-_123 .', 'krt-park-id/1 !AbC-_123', 'krt-parked/2 +0 !AbC-_123 .']) {
      expect(agreedStateId([metadata])).toBeUndefined();
    }
  });
});
